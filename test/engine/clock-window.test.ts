/**
 * The sandbox clock and authentication (issue 15, item 2): the ±300 s window is measured against
 * real time (pinned here through `wallMicros`), the engine clock moves only the sandbox's own
 * lifecycle, and `POST /_sandbox/clock/reset` brings it back to real time without stranding work
 * already scheduled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type PaydeskClient } from '../../electron/client';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { control, data } from '../engine-control/control';
import { ok, paymentBody, profileFor, secretsOf } from './helpers';

/** Real time as the test pins it: a whole second plus half a second, so flooring is unambiguous. */
const WALL_SECONDS = 1_900_000_000;
let wallMicros = WALL_SECONDS * 1_000_000 + 500_000;

const open: { engine: EngineHandle; clients: PaydeskClient[] }[] = [];
afterEach(async () => {
  for (const { engine, clients } of open.splice(0)) {
    await Promise.all(clients.map((client) => client.close()));
    await engine.stop();
  }
});

async function pinnedEngine(settleMs = 0): Promise<EngineHandle> {
  wallMicros = WALL_SECONDS * 1_000_000 + 500_000;
  const engine = await startEngine({ db: ':memory:', port: 0, settleMs, wallMicros: () => wallMicros });
  open.push({ engine, clients: [] });
  return engine;
}

/** A client signing at real time plus `shiftSeconds`. */
function signingAt(engine: EngineHandle, shiftSeconds: number): PaydeskClient {
  const client = createClient(profileFor(engine), secretsOf(engine), { now: () => (WALL_SECONDS + shiftSeconds) * 1000, retry: { attempts: 1 } });
  open.find((entry) => entry.engine === engine)!.clients.push(client);
  return client;
}

async function outcome(engine: EngineHandle, shiftSeconds: number): Promise<string> {
  const result = await signingAt(engine, shiftSeconds).createPayment(paymentBody());
  return result.kind === 'success' ? 'accepted' : result.kind === 'api-error' ? result.code : result.kind;
}

describe('the timestamp window (spec 5.4: ±5 minutes of server time)', () => {
  it('accepts exactly ±300 s and refuses ±301 s, measured against real time', async () => {
    const engine = await pinnedEngine();
    expect(await outcome(engine, -300)).toBe('accepted');
    expect(await outcome(engine, 300)).toBe('accepted');
    expect(await outcome(engine, -301)).toBe('TIMESTAMP_EXPIRED');
    expect(await outcome(engine, 301)).toBe('TIMESTAMP_EXPIRED');
  });

  it('still accepts a request signed with real time after the sandbox clock was advanced by more than 5 minutes', async () => {
    const engine = await pinnedEngine();
    data(await control(engine, 'POST', '/clock/advance', { seconds: 3600 }));
    expect(await outcome(engine, 0)).toBe('accepted');
    expect(await outcome(engine, 300)).toBe('accepted');
    // Engine time is an hour ahead, but a signature made at it is an hour ahead of real time.
    expect(await outcome(engine, 3600)).toBe('TIMESTAMP_EXPIRED');
  });
});

describe('POST /_sandbox/clock/reset', () => {
  it('brings engine time back to real time, and the offset stays 0 when read again', async () => {
    const engine = await pinnedEngine();
    data(await control(engine, 'POST', '/clock/advance', { seconds: 86_400 }));
    expect(engine.clock.nowSeconds()).toBe(WALL_SECONDS + 86_400);
    const reset = data(await control<{ now: string; offsetSeconds: number; removedSeconds: number }>(engine, 'POST', '/clock/reset', {}));
    expect(reset).toMatchObject({ offsetSeconds: 0, removedSeconds: 86_400 });
    expect(reset.now).toBe(new Date(wallMicros / 1000).toISOString().replace('Z', '000Z'));
    expect(engine.clock.nowSeconds()).toBe(WALL_SECONDS);
    expect(data(await control<{ offsetSeconds: number }>(engine, 'GET', '/clock')).offsetSeconds).toBe(0);
    // Once more: nothing to remove.
    expect(data(await control<{ removedSeconds: number }>(engine, 'POST', '/clock/reset', {})).removedSeconds).toBe(0);
  });

  it('keeps the wait a transaction had left: one made while the clock was a day ahead still settles after its delay', async () => {
    const engine = await pinnedEngine(60_000);
    engine.clock.advance(86_400);
    const created = ok(await signingAt(engine, 0).createPayment(paymentBody()));
    expect(created.status).toBe('processing');
    expect(engine.clock.reset().rescheduled.decisions).toBeGreaterThanOrEqual(1);
    engine.clock.advance(59);
    expect(engine.control.transaction(created.transaction_id)?.status).toBe('processing');
    // 60 s after it was made, on the reset clock (without the move it would wait a whole day).
    engine.clock.advance(1);
    expect(engine.control.transaction(created.transaction_id)?.status).toBe('completed');
  });

  it('refuses a body', async () => {
    const engine = await pinnedEngine();
    const response = await control(engine, 'POST', '/clock/reset', { seconds: 1 });
    expect(response.status).toBe(422);
  });
});
