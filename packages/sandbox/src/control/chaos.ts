/**
 * `/_sandbox/applications/{appId}/webhook-chaos`: read, set (PUT replaces, and starts the seeded
 * draws again) and turn off (DELETE) an application's webhook chaos (webhooks/chaos.ts).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { toFieldErrors } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import { successBody } from '../api/errors';
import { chaosSettingsSchema, clearChaos, readChaos, setChaos, type ChaosSettingsInput, type WebhookChaos } from '../webhooks/chaos';
import { readControlBody } from './body';
import { ControlError } from './guard';

export interface ChaosOperations {
  /** Null: off. */
  read(appId: string): WebhookChaos | null;
  /** Validates like the control API (ControlError VALIDATION_ERROR naming each field). */
  set(appId: string, settings: ChaosSettingsInput): WebhookChaos;
  /** Turns it off; false when it was off. */
  clear(appId: string): boolean;
}

export function chaosOperations(ctx: EngineContext): ChaosOperations {
  function requireApp(appId: string): void {
    if (!ctx.db.prepare('SELECT 1 FROM applications WHERE id = ?').get(appId)) throw new ControlError('NOT_FOUND', `No application ${appId}.`);
  }
  return {
    read(appId) {
      requireApp(appId);
      return readChaos(ctx.db, appId);
    },
    set(appId, settings) {
      requireApp(appId);
      const parsed = chaosSettingsSchema.safeParse(settings);
      if (!parsed.success) throw new ControlError('VALIDATION_ERROR', 'The request failed validation.', toFieldErrors(parsed.error.issues));
      const chaos = ctx.write(() => setChaos(ctx.db, appId, parsed.data, ctx.clock.nowMicros()));
      ctx.queueEvent({ type: 'extension', topic: 'webhook.chaos', data: { appId, on: true } });
      return chaos;
    },
    clear(appId) {
      requireApp(appId);
      const cleared = ctx.write(() => clearChaos(ctx.db, appId));
      ctx.queueEvent({ type: 'extension', topic: 'webhook.chaos', data: { appId, on: false } });
      return cleared;
    },
  };
}

function appIdOf(request: { params: unknown }): string {
  return (request.params as { appId: string }).appId;
}

export function registerChaosRoutes(app: FastifyInstance, chaos: ChaosOperations): void {
  app.get('/applications/:appId/webhook-chaos', async function readChaosRoute(request) {
    const found = chaos.read(appIdOf(request));
    return successBody(found === null ? 'Webhook chaos is off.' : 'Webhook chaos is on.', { enabled: found !== null, chaos: found });
  });
  app.put('/applications/:appId/webhook-chaos', async function setChaosRoute(request) {
    const body = readControlBody(request, chaosSettingsSchema);
    const set = chaos.set(appIdOf(request), body);
    return successBody(`Webhook chaos on for ${set.appId}, seed ${set.seed}.`, { enabled: true, chaos: set });
  });
  app.delete('/applications/:appId/webhook-chaos', async function clearChaosRoute(request) {
    readControlBody(request, z.strictObject({}));
    chaos.clear(appIdOf(request));
    return successBody('Webhook chaos is off.', { enabled: false, chaos: null });
  });
}
