/**
 * Waiting on the engine's webhook delivery records in tests: resolves with the records (of one
 * application, or all) once `predicate` holds, checked at once and on every delivery event.
 */
import type { EngineHandle, WebhookDelivery } from '../../packages/sandbox/src/engine';

export function waitForDeliveries(
  engine: EngineHandle,
  predicate: (deliveries: WebhookDelivery[]) => boolean,
  { appId, timeoutMs = 10_000 }: { appId?: string; timeoutMs?: number } = {},
): Promise<WebhookDelivery[]> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const all = engine.webhooks.deliveries(appId);
      if (!predicate(all)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(all);
    };
    const timer = setTimeout(() => {
      unsubscribe();
      const have = engine.webhooks.deliveries(appId).map((d) => [d.transactionId.slice(-4), d.eventType, d.status, d.attempts.length]);
      reject(new Error(`deliveries never matched; have ${JSON.stringify(have)}`));
    }, timeoutMs);
    const unsubscribe = engine.onEvent((event) => {
      if (event.type === 'extension' && event.topic === 'webhook.delivery') check();
    });
    check();
  });
}
