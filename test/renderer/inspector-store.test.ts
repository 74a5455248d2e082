import { describe, expect, it } from 'vitest';
import type { InspectedRequest } from '../../shared/contract';
import { createInspectorStore } from '../../renderer/src/stores/inspector';
import { createFakeApi, ok } from './fakeApi';

function record(seq: number, status: number, publicKey = 'pk_sandbox_payment_a'): InspectedRequest {
  return {
    id: `req_${seq}`, seq, at: '2026-11-23T10:00:00.000000Z', method: 'POST', path: '/v1/payments', query: '', status,
    code: status >= 400 ? 'INVALID_DIGITAL_SIGNATURE' : null, durationMs: 1.5, publicKey, environment: 'sandbox',
    bodyLength: 2, body: '{}', bodyTruncated: false, remoteAddress: '127.0.0.1', diagnosis: null,
  };
}

describe('inspector store', () => {
  it('asks main with the filter, prepends pushed records that match it and ignores the others', async () => {
    const api = createFakeApi({ 'sandbox:requests': () => ok({ requests: [record(1, 401)], nextCursor: null, capacity: 500 }) });
    const store = createInspectorStore(api);
    await store.getState().setFilter({ status: '4xx', key: 'pk_sandbox_payment_a' });
    expect(api.callsOf('sandbox:requests')).toEqual([{ limit: 100, status: '4xx', key: 'pk_sandbox_payment_a' }]);
    store.getState().received([record(2, 200), record(3, 401, 'pk_sandbox_payout_a'), record(4, 403), record(5, 401)]);
    store.getState().received([record(5, 401)]);
    expect(store.getState().requests.map((r) => r.id)).toEqual(['req_5', 'req_4', 'req_1']);
  });

  it('pages with the cursor main gave, and reproduces a GET without its body', async () => {
    const api = createFakeApi({
      'sandbox:requests': (input) => ok(input.cursor ? { requests: [record(1, 200)], nextCursor: null, capacity: 500 } : { requests: [record(2, 200)], nextCursor: '2', capacity: 500 }),
      'sandbox:signRequest': () => ({ ok: false, error: { code: 'SANDBOX_UNAVAILABLE', message: 'off' } }),
    });
    const store = createInspectorStore(api);
    await store.getState().load();
    await store.getState().loadMore();
    expect(store.getState().requests.map((r) => r.id)).toEqual(['req_2', 'req_1']);
    expect(store.getState().nextCursor).toBeNull();
    const answer = await store.getState().reproduce({ ...record(5, 401), method: 'GET', path: '/v1/balance', query: 'a=1', body: 'ignored' });
    expect(answer).toEqual({ failure: { code: 'SANDBOX_UNAVAILABLE', message: 'off' } });
    expect(api.callsOf('sandbox:signRequest')).toEqual([{ method: 'GET', path: '/v1/balance', query: 'a=1', body: '', language: 'en' }]);
  });
});
