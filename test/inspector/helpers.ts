/**
 * Raw signed requests for the inspector tests: every part of the signature can be made wrong on
 * purpose (the real client would always sign correctly).
 */
import { canonicalBytes, computeSignature, payloadFor } from '@paydesk/sandbox';
import type { EngineHandle } from '../../packages/sandbox/src/engine';
import type { InspectedPage, InspectedRequest } from '../../shared/contract';
import { control, data } from '../engine-control/control';

export const SANDBOX_PAYMENT = { publicKey: 'pk_sandbox_payment_paydeskdemo01', secret: 'sk_sandbox_payment_paydeskdemo01_secret' };
export const SANDBOX_PAYOUT = { publicKey: 'pk_sandbox_payout_paydeskdemo01', secret: 'sk_sandbox_payout_paydeskdemo01_secret' };
export const FIXTURE_SECRETS = [
  'sk_sandbox_payment_paydeskdemo01_secret',
  'sk_sandbox_payout_paydeskdemo01_secret',
  'sk_live_payment_paydeskdemo01_secret',
  'sk_live_payout_paydeskdemo01_secret',
];

export interface RawRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: string;
  body?: string;
  publicKey: string;
  secret: string;
  environment?: string;
  /** Default: the engine clock now. */
  timestamp?: string;
  /** What the client signs instead of the right thing. */
  sign?: { method?: string; path?: string; payload?: string; secret?: string };
  /** Replaces the computed signature header. */
  signature?: string;
  /** Headers to drop (by their name). */
  omit?: string[];
}

/** Sends the request and returns its status and the inspector's record of it. */
export async function sendRaw(engine: EngineHandle, spec: RawRequest): Promise<{ status: number; code: string | undefined; record: InspectedRequest }> {
  const timestamp = spec.timestamp ?? String(engine.clock.wallSeconds());
  const signedPayload = spec.sign?.payload ?? payloadFor(spec.method, spec.query ?? '', spec.body);
  // The method as the client wrote it (a client that does not upper-case it is simulated with sign.method).
  const bytes = canonicalBytes(
    { publicKey: spec.publicKey, timestamp, method: spec.sign?.method ?? spec.method, path: spec.sign?.path ?? spec.path, payload: signedPayload },
    { methodAsSent: true },
  );
  const headers: Record<string, string> = {
    Authorization: spec.publicKey,
    'X-SVC-Timestamp': timestamp,
    'X-SVC-Signature': spec.signature ?? computeSignature(spec.sign?.secret ?? spec.secret, bytes),
    'X-SVC-Environment': spec.environment ?? 'sandbox',
  };
  if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
  for (const name of spec.omit ?? []) delete headers[name];
  const target = `${engine.api.url}${spec.path}${spec.query ? `?${spec.query}` : ''}`;
  const seen = nextRecord(engine);
  const response = await fetch(target, { method: spec.method, headers, body: spec.body });
  const answer = (await response.json()) as { code?: string };
  return { status: response.status, code: answer.code, record: await seen };
}

/** Resolves with the next request the inspector records (its `request` event). */
export function nextRecord(engine: EngineHandle): Promise<InspectedRequest> {
  return new Promise((resolve) => {
    const unsubscribe = engine.onEvent((event) => {
      if (event.type === 'extension' && event.topic === 'request') {
        unsubscribe();
        resolve(event.data as InspectedRequest);
      }
    });
  });
}

export async function requestsPage(engine: EngineHandle, query = ''): Promise<InspectedPage> {
  return data(await control<InspectedPage>(engine, 'GET', `/requests${query}`));
}
