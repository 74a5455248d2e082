/**
 * The follow-up sweeper, through the storage port (issue 24): a single payment left outcome
 * unknown in this run is the user's to look up (the screen asks for it), so the sweep after a
 * batch run leaves it as it is; after a restart it is from an earlier run, and the sweep at start
 * looks it up by its external id. The real engine behind a gate proxy (./proxied-console.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { expectOk, paymentRequest } from './helpers';
import { batchCsv, sendConfirmed } from './batch-helpers';
import { SERVER_ERROR } from './gate-proxy';
import { startProxiedConsole, type ProxiedConsole } from './proxied-console';

let s: ProxiedConsole;
beforeAll(async () => {
  s = await startProxiedConsole('paydesk-sweeper-singles-');
});
afterAll(async () => {
  await s?.close();
});

const lookedUp = async (runtime: ConsoleRuntime, journalId: string) => {
  const { timeline } = expectOk(await runtime.handlers['transactions:get']({ journalId }));
  return timeline.filter((event) => event.code === 'NOT_FOUND').length;
};

it('leaves a single send of this run to the user, and looks it up once it is from an earlier run', async () => {
  // A 503 that never reached the engine: outcome unknown, nothing at the service.
  s.proxy.decide = (request) => (request.method === 'POST' && request.externalId === 'ORDER-sweep-1' ? SERVER_ERROR({ forward: false }) : 'forward');
  const failed = await s.runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-sweep-1' }) });
  expect(failed.ok ? null : failed.error.code).toBe('OUTCOME_UNKNOWN');
  const journalId = failed.ok ? '' : failed.error.journalId!;

  // A batch run ends with a sweep: it follows the batch's rows, not this payment.
  const { batch } = expectOk(await s.runtime.handlers['batches:import']({ fileName: 'sweep.csv', text: batchCsv(1, { tag: 'sweep' }), paymentMethod: 'momo_cm' }));
  expect((await sendConfirmed(s.runtime, batch.id)).state).toBe('done');
  await s.runtime.followUpsIdle();
  expect(expectOk(await s.runtime.handlers['transactions:get']({ journalId })).transaction.state).toBe('outcome_unknown');
  expect(await lookedUp(s.runtime, journalId)).toBe(0);

  // Started again: the payment is from an earlier run, looked up by its external id, not found.
  const again = await s.restart();
  await again.followUpsIdle();
  expect(await lookedUp(again, journalId)).toBe(1);
  expect(s.engineCount('ORDER-sweep-1')).toBe(0);
});
