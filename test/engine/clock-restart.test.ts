/**
 * The engine clock's offset (moved by `POST /_sandbox/clock/advance`) is stored in the database:
 * a restart on the same file keeps engine time where it was, so retries scheduled before the
 * restart are not late and new timestamps never precede older ones.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../packages/sandbox/src/engine';
import { initiatedTransactionSchema } from '../../shared/contract';
import { control, data } from '../engine-control/control';
import { clientFor, ok, paymentBody, tempDir } from './helpers';

const temp = tempDir();
afterAll(() => temp.cleanup());

const ONE_DAY = 86_400;

describe('engine clock across a restart', () => {
  it('keeps the advanced offset, and new transactions are created after the earlier ones', async () => {
    const file = join(temp.dir, 'clock.db');
    const first = await startEngine({ db: file, port: 0, settleMs: 0 });
    const client = clientFor(first);
    let earlier: { created_at: string; updated_at: string };
    let offsetBefore: number;
    try {
      data(await control(first, 'POST', '/clock/advance', { seconds: ONE_DAY }));
      data(await control(first, 'POST', '/clock/advance', { seconds: 90.5 }));
      offsetBefore = data(await control<{ offsetSeconds: number }>(first, 'GET', '/clock')).offsetSeconds;
      expect(offsetBefore).toBeGreaterThanOrEqual(ONE_DAY + 90.5);
      earlier = initiatedTransactionSchema.parse(ok(await client.createPayment(paymentBody())));
    } finally {
      await client.close();
      await first.stop();
    }

    const second = await startEngine({ db: file, port: 0, settleMs: 0 });
    const again = clientFor(second);
    try {
      const clock = data(await control<{ now: string; offsetSeconds: number }>(second, 'GET', '/clock'));
      expect(clock.offsetSeconds).toBe(offsetBefore);
      expect(clock.now > earlier.updated_at).toBe(true);
      const later = initiatedTransactionSchema.parse(ok(await again.createPayment(paymentBody())));
      expect(later.created_at > earlier.created_at).toBe(true);
      // A further advance adds to the stored offset; it survives a reset to the seed (engine time
      // is not seed data) and the next restart.
      data(await control(second, 'POST', '/clock/advance', { seconds: 60 }));
      data(await control(second, 'POST', '/reset'));
    } finally {
      await again.close();
      await second.stop();
    }
    const third = await startEngine({ db: file, port: 0, settleMs: 0 });
    try {
      expect(data(await control<{ offsetSeconds: number }>(third, 'GET', '/clock')).offsetSeconds).toBe(offsetBefore + 60);
    } finally {
      await third.stop();
    }
  });

  it('an in-memory database starts at offset 0 every time', async () => {
    const engine = await startEngine({ db: ':memory:', port: 0 });
    try {
      expect(data(await control<{ offsetSeconds: number }>(engine, 'GET', '/clock')).offsetSeconds).toBe(0);
    } finally {
      await engine.stop();
    }
  });
});
