/**
 * The team senders' follow-up duty (issue 38 items 3 and 5;
 * docs/decisions/one-follow-up-round-per-team.md): whatever the number of senders, one at a time
 * takes the follow-up rounds of the sender-held entries, so each open payout is read once per round
 * for the team. The duty is a PostgreSQL session-level advisory lock held on a connection of its
 * own: the server releases it when that connection ends (the sender stopped, was killed, or lost
 * the database), and another sender, trying every `everyMs`, takes it and follows up at once.
 *
 * A lock held by a login that is not a sender (anyone may take an advisory lock with raw SQL) is
 * not a duty: every sender then follows up, and says so (more reads, nothing left unfollowed).
 */
import pg from 'pg';
import type { FollowUpDuty } from '../console/deps';

/** Any fixed number, not the migration lock's (storage/postgres/migrate.ts): "pdfu". */
export const FOLLOW_UP_DUTY_LOCK = 0x7064_6675;

export interface SenderDuty extends FollowUpDuty {
  close(): Promise<void>;
}

export interface DutyOptions {
  /** How often a sender without the duty tries to take it (ms). */
  everyMs: number;
  /** This sender took the duty on its own try (not in a round): a round is due now. */
  taken(): void;
  /** The duty changed hands as this sender sees it (reported: taken, lost). */
  changed(held: boolean): void;
  fault(message: string): void;
  roundEnded?: FollowUpDuty['roundEnded'];
}

/** Whether the advisory lock's holder (if any) is a sender login: the database's `pg_locks` and `pg_stat_activity`. */
const HOLDER_IS_SENDER = `
  SELECT pg_has_role(a.usesysid, 'paydesk_sender', 'MEMBER') AS sender
    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
   WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1
     AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

export function openFollowUpDuty(config: pg.PoolConfig, options: DutyOptions): SenderDuty {
  let client: pg.Client | null = null;
  let holding = false;
  let closed = false;
  let warned = false;
  let trying: Promise<boolean> | null = null;

  function dropped(error: Error | null): void {
    if (!client) return;
    const was = holding;
    holding = false;
    client.end().catch(() => undefined);
    client = null;
    if (!closed) options.fault(`the follow-up duty's connection was lost (${error?.message ?? 'closed'})${was ? ': the duty is released, another sender takes it' : ''}`);
    if (was && !closed) options.changed(false);
  }

  async function connection(): Promise<pg.Client> {
    if (client) return client;
    const { max: _max, idleTimeoutMillis: _idle, ...clientConfig } = config;
    const next = new pg.Client({ ...clientConfig, application_name: 'paydesk-sender-follow-up' });
    next.on('error', (error) => dropped(error));
    next.on('end', () => dropped(null));
    client = next;
    await next.connect();
    return next;
  }

  async function attempt(): Promise<boolean> {
    if (closed) return false;
    try {
      const c = await connection();
      // The connection that holds the lock still answers: the duty is still this sender's.
      if (holding) {
        await c.query('SELECT 1');
        return holding;
      }
      const { rows } = await c.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [FOLLOW_UP_DUTY_LOCK]);
      if (rows[0]?.taken === true) {
        holding = true;
        warned = false;
        options.changed(true);
        return true;
      }
      const holder = await c.query<{ sender: boolean }>(HOLDER_IS_SENDER, [FOLLOW_UP_DUTY_LOCK]);
      if (holder.rows.length > 0 && holder.rows.every((row) => row.sender !== true)) {
        if (!warned) options.fault('the follow-up lock is held by a login that is not a team sender: this sender follows up anyway');
        warned = true;
        return true;
      }
      return false;
    } catch (error) {
      dropped(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  }

  /** One try at a time (a round and the watch may ask together). */
  function take(): Promise<boolean> {
    trying ??= attempt().finally(() => {
      trying = null;
    });
    return trying;
  }

  const watch = setInterval(() => {
    if (holding || closed) return;
    void take().then((now) => {
      if (now && holding) options.taken();
    });
  }, options.everyMs);

  return {
    take,
    ...(options.roundEnded ? { roundEnded: options.roundEnded } : {}),
    async close() {
      closed = true;
      clearInterval(watch);
      await trying;
      holding = false;
      const last = client;
      client = null;
      // Ending the session releases the lock (the server's own rule, whatever this process does next).
      await last?.end().catch(() => undefined);
    },
  };
}
