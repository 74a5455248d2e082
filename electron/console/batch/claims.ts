/**
 * The rows a run sends, taken through the storage port's row claims (../storage/port.ts
 * BatchPort.claimRows), so that no two senders ever hold one row: a few rows at a time, under a
 * lease held by this console, renewed just before each POST and released once the claim's rows
 * are answered. Workers take the claimed rows in row order, as they took the batch's rows before.
 *
 * Each claim has its own holder (this console's id and a number): renewing it says exactly
 * whether every row of that claim is still this console's. A claim found lost (its lease ran
 * out, another sender may hold its rows) sends nothing more; its rows in flight keep their
 * pending entries, which the lease's expiry made outcome unknown: they are looked up by external
 * id (./look-up.ts), never sent again blindly.
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
  /** Renews the row's claim right before its POST: false when this console no longer holds all of it (the row is not sent). */
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
  let current: Claim | null = null;
  let claiming: Promise<void> | null = null;
  let exhausted = false;
  let count = 0;

  async function claimNext(): Promise<void> {
    count += 1;
    const holder = `${options.holder}/${count}`;
    const claimed = await batches.claimRows(batchId, holder, options.size, options.leaseMs, clock.now());
    if (claimed.rows.length === 0) {
      exhausted = true;
      return;
    }
    current = { holder, rows: claimed.rows, taken: 0, ended: 0, lost: false, released: false };
    open.add(current);
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
        const claim = current;
        if (claim && !claim.lost && claim.taken < claim.rows.length) return { row: claim.rows[claim.taken++]!, claim };
        if (exhausted) return null;
        // One claim at a time: the workers waiting for rows share it.
        claiming ??= claimNext().finally(() => {
          claiming = null;
        });
        await claiming;
      }
    },
    async keep({ claim }) {
      if (claim.lost) return false;
      const held = await batches.renewClaims(batchId, claim.holder, options.leaseMs, clock.now());
      if (held !== claim.rows.length) claim.lost = true;
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
      await Promise.all([...open].map(release));
    },
  };
}
