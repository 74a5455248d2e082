/**
 * The rows a run sends, taken through the storage port's row claims (../storage/port.ts
 * BatchPort.claimRows), so that no two senders ever hold one row: a few rows at a time, under a
 * lease held by this console, renewed (the whole claim) just before a POST once half the lease has gone, and
 * released once the claim's rows are answered. Workers take the claimed rows in row order, as
 * they took the batch's rows before.
 *
 * Each claim has its own holder (this console's id and a number): renewing a row before its POST
 * says exactly whether that row is still this console's. A claim found lost (a row's lease ran
 * out, another sender may hold it) sends nothing more; its rows in flight keep their pending
 * entries, which the lease's expiry made outcome unknown: they are looked up by external id
 * (./look-up.ts), never sent again blindly. Rows not yet handed out keep the lease of their
 * claim; one that ran out before its turn is found lost by its renewal and claimed again.
 */
import { randomUUID } from 'node:crypto';
import type { BatchRow } from '../../../shared/api';
import type { Clock } from '../deps';
import type { BatchPort } from '../storage/port';

/** Rows per claim (at least the run's concurrency): small, so a lost sender strands few rows. */
export const CLAIM_ROWS = 10;
/**
 * How long a claim holds without being renewed. Renewed before each POST, so it must outlast the
 * longest wait between two POSTs of a claim that is not a wait for the service (a POST's answer:
 * the client gives up well before).
 */
export const LEASE_MS = 120_000;
/**
 * Open claims are also renewed this often (a share of the lease) while a run holds them: a row
 * waiting out the service's Retry-After keeps its claim, and a desktop that dies stops renewing,
 * so its rows come back to the others once the lease runs out (several desktops, one batch).
 */
export const RENEWALS_PER_LEASE = 3;

/** This console's id as a row claim's holder: one per process, never reused. */
export const CONSOLE_HOLDER = `console-${randomUUID()}`;

interface Claim {
  holder: string;
  /** This console's clock just before the claim was asked or last renewed: its leases end no sooner than `renewedAt + leaseMs`. */
  renewedAt: number;
  rows: BatchRow[];
  /** Rows handed to workers. */
  taken: number;
  /** Rows handed out whose sending has ended (answered, or given up on). */
  ended: number;
  lost: boolean;
  released: boolean;
}

export interface ClaimedRow {
  row: BatchRow;
  claim: Claim;
}

export interface RowClaims {
  /** The next row to send, in row order; null when there is nothing left to claim. */
  next(): Promise<ClaimedRow | null>;
  /** Renews the row's lease right before its POST: false when this console no longer holds it (the row is not sent, nor the rest of its claim). */
  keep(claimed: ClaimedRow): Promise<boolean>;
  /** The row's sending has ended: once every row of its claim has, the claim is released. */
  done(claimed: ClaimedRow): Promise<void>;
  /** Releases every claim still held (the run's sending ends) and stops renewing them. */
  releaseAll(): Promise<void>;
}

export interface ClaimOptions {
  holder: string;
  /** Rows per claim. */
  size: number;
  leaseMs: number;
}

export function rowClaims(batches: BatchPort, batchId: string, clock: Pick<Clock, 'now'>, options: ClaimOptions): RowClaims {
  const open = new Set<Claim>();
  /** Claims whose rows are still to hand out, in row order: the current one, and the next once asked. */
  const queue: Claim[] = [];
  let claiming: Promise<void> | null = null;
  let exhausted = false;
  let count = 0;

  async function claimNext(): Promise<void> {
    count += 1;
    const holder = `${options.holder}/${count}`;
    const claimedAt = clock.now();
    const claimed = await batches.claimRows(batchId, holder, options.size, options.leaseMs, claimedAt);
    if (claimed.rows.length === 0) {
      exhausted = true;
      return;
    }
    const claim: Claim = { holder, renewedAt: claimedAt, rows: claimed.rows, taken: 0, ended: 0, lost: false, released: false };
    queue.push(claim);
    open.add(claim);
  }

  /** One claim asked at a time: the workers waiting for rows share it. */
  function claimOnce(): Promise<void> {
    claiming ??= claimNext().finally(() => {
      claiming = null;
    });
    return claiming;
  }

  // Renewed on a timer as well as before each POST; a claim found short is lost (sends nothing more).
  let renewing: Promise<void> | null = null;
  const heartbeat = setInterval(() => {
    renewing ??= Promise.all(
      [...open].map(async (claim) => {
        if (claim.lost || claim.released) return;
        const held = await batches.renewClaims(batchId, claim.holder, options.leaseMs, clock.now());
        if (held !== claim.rows.length && !claim.released) claim.lost = true;
      }),
    )
      .then(() => undefined, () => undefined) // a failed renewal is retried; the lease decides
      .finally(() => {
        renewing = null;
      });
  }, Math.max(50, Math.floor(options.leaseMs / RENEWALS_PER_LEASE)));
  heartbeat.unref();

  async function release(claim: Claim): Promise<void> {
    if (claim.released) return;
    claim.released = true;
    open.delete(claim);
    await batches.releaseClaims(batchId, claim.holder, claim.rows.map((row) => row.rowNumber));
  }

  return {
    async next() {
      for (;;) {
        while (queue.length > 0 && (queue[0]!.lost || queue[0]!.taken === queue[0]!.rows.length)) queue.shift();
        const claim = queue[0];
        if (claim) {
          const row = claim.rows[claim.taken++]!;
          // The next claim is asked only when this one is handed out: a claim asked ahead sat
          // unrenewed behind the service's waits (a 429's minute) and ran out before its turn,
          // and a desktop alone then ended its batch interrupted with rows not sent.
          return { row, claim };
        }
        if (exhausted) return null;
        await claimOnce();
      }
    },
    async keep({ claim }) {
      if (claim.lost) return false;
      // Renewed less than half a lease ago: every row of it is still this console's for at least
      // another half (a lease only runs out with time; the store's clock started it after ours
      // read renewedAt), so the round trip of a renewal is saved.
      const at = clock.now();
      if (at - claim.renewedAt < options.leaseMs / 2) return true;
      // Past half, the whole claim: rows waiting their turn behind a long wait for the service (a
      // 429's Retry-After) keep their lease too; renewing only the row sent let them run out and a
      // desktop alone ended its batch interrupted. The store's renewal never waits for a row lock
      // (a workspace's group commit may hold some while it links their entries), so it cannot deadlock.
      const held = await batches.renewClaims(batchId, claim.holder, options.leaseMs, at);
      // Lost (a lease ran out and another sender may hold its row): the claim hands out no more rows.
      if (held !== claim.rows.length) claim.lost = true;
      else claim.renewedAt = at;
      return !claim.lost;
    },
    async done({ claim }) {
      claim.ended += 1;
      // A lost claim hands out no more rows: it ends with the ones already taken.
      if (claim.ended === (claim.lost ? claim.taken : claim.rows.length)) await release(claim);
    },
    async releaseAll() {
      clearInterval(heartbeat);
      await renewing;
      // A claim asked ahead and not answered yet is released too, once it is.
      await claiming?.catch(() => undefined);
      await Promise.all([...open].map(release));
    },
  };
}
