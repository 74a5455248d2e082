/**
 * An attempt that created nothing is part of its payout's entry (issue 23 item 3), on a real
 * SQLite journal: a new request with the external id of an entry that was never created at the
 * service (429 / never left: `not_sent`; looked up, not found) continues that entry, and journal
 * migration 8 folds such entries of an older journal into the latest entry of their payout.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../electron/console/journal/migrations';
import { ExternalIdKnown, getTimeline, openJournal, recordInitiateOutcome, recordNotFound, recordObserved, recordRequest } from '../../electron/console/journal/entries';
import { searchJournal } from '../../electron/console/journal/search';
import { readOverview } from '../../electron/console/journal/overview';
import { paymentRequest, tempDir } from './helpers';

const PROFILE = { id: 'p1', name: 'Acme', environment: 'sandbox' as const };
const RATE_LIMITED = { kind: 'retry-later' as const, error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests', httpStatus: 429 }, retryAfterSeconds: 12 };
const accepted = (externalId: string, amount: number, status = 'completed') => ({
  kind: 'accepted' as const,
  httpStatus: 200,
  message: null,
  tx: { transaction_id: `tx-${externalId}`, external_id: externalId, status, failed_code: status === 'failed' ? 'EXPIRED' : null, amount, currency: 'XAF', created_at: '2026-11-25T10:00:00Z', type: 'payout' } as never,
});

function payout(db: Database.Database, externalId: string, at: number, amount = 1000) {
  return recordRequest(db, { profile: PROFILE, kind: 'payout', request: paymentRequest({ external_id: externalId, amount }), currency: 'XAF', at });
}

describe('a new attempt with the same external id', () => {
  it('continues the entry of a 429 attempt: one entry, the 429 then the answer in its timeline', () => {
    const db = openJournal(`${tempDir()}/journal.db`);
    const first = payout(db, 'PRIME-DEC-019', 1);
    recordInitiateOutcome(db, first.id, RATE_LIMITED, 2);
    const again = payout(db, 'PRIME-DEC-019', 3, 1200);
    expect(again.id).toBe(first.id);
    expect(again).toMatchObject({ state: 'pending', amount: 1200 });
    recordInitiateOutcome(db, again.id, accepted('PRIME-DEC-019', 1200), 4);
    const page = searchJournal(db, { externalId: 'PRIME-DEC-019' }, 0, 10);
    expect(page.rows.map((row) => [row.state, row.status])).toEqual([['known', 'completed']]);
    expect(getTimeline(db, first.id).map((event) => [event.type, event.httpStatus]).reverse()).toEqual([
      ['request_sent', null],
      ['api_error', 429],
      ['request_sent', null],
      ['response', 200],
    ]);
  });

  it('continues an entry that created nothing (looked up and not found, refused, rate limited), and leaves other profiles\' alone', () => {
    const db = openJournal(`${tempDir()}/journal.db`);
    const lost = payout(db, 'LOST-1', 1);
    recordInitiateOutcome(db, lost.id, { kind: 'may-exist', cause: 'no-answer', message: 'timeout', error: null, retryAfterSeconds: null }, 2);
    recordNotFound(db, lost.id, 3, 'not found by external id');
    expect(payout(db, 'LOST-1', 4).id).toBe(lost.id);

    // A 4xx refusal created nothing: the same payout sent again is the same record, the refusal on its timeline.
    const refused = payout(db, 'BAD-1', 5);
    recordInitiateOutcome(db, refused.id, { kind: 'refused', error: { code: 'INVALID_PHONE', message: 'bad phone', httpStatus: 400 } }, 6);
    expect(payout(db, 'BAD-1', 7).id).toBe(refused.id);
    expect(getTimeline(db, refused.id).map((event) => event.code).filter(Boolean)).toContain('INVALID_PHONE');

    const limited = payout(db, 'OTHER-1', 8);
    recordInitiateOutcome(db, limited.id, RATE_LIMITED, 9);
    const elsewhere = recordRequest(db, { profile: { ...PROFILE, id: 'p2' }, kind: 'payout', request: paymentRequest({ external_id: 'OTHER-1' }), currency: 'XAF', at: 10 });
    expect(elsewhere.id).not.toBe(limited.id);
    const payment = recordRequest(db, { profile: PROFILE, kind: 'payment', request: paymentRequest({ external_id: 'OTHER-1' }), currency: 'XAF', at: 11 });
    expect(payment.id).not.toBe(limited.id);
  });

  it('refuses an external id the journal holds as money (in flight, unknown, known, failed), whatever profile sent it, and writes nothing', () => {
    const db = openJournal(`${tempDir()}/journal.db`);
    const entries = () => (db.prepare('SELECT COUNT(*) AS n FROM entries').get() as { n: number }).n;
    const inFlight = payout(db, 'FLY-1', 1);
    const lost = payout(db, 'LOST-2', 2);
    recordInitiateOutcome(db, lost.id, { kind: 'may-exist', cause: 'server-error', message: '503', error: null, retryAfterSeconds: null }, 3);
    const paid = payout(db, 'PAID-1', 4);
    recordInitiateOutcome(db, paid.id, accepted('PAID-1', 1000), 5);
    const failed = payout(db, 'FAIL-1', 6);
    recordInitiateOutcome(db, failed.id, accepted('FAIL-1', 1000, 'failed'), 7);
    const before = entries();
    for (const [externalId, held] of [['FLY-1', inFlight], ['LOST-2', lost], ['PAID-1', paid], ['FAIL-1', failed]] as const) {
      for (const profile of [PROFILE, { ...PROFILE, id: 'p2', name: 'Second profile' }]) {
        let refusal: unknown = null;
        try {
          recordRequest(db, { profile, kind: 'payout', request: paymentRequest({ external_id: externalId }), currency: 'XAF', at: 10 });
        } catch (error) {
          refusal = error;
        }
        expect(refusal).toBeInstanceOf(ExternalIdKnown);
        expect((refusal as ExternalIdKnown).known).toMatchObject({ journalId: held.id, externalId });
      }
    }
    expect(entries()).toBe(before);
    // The unique index holds even for a write that skips the guard (a bug, a second process).
    expect(() => db.prepare(`INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
      customer_first_name, customer_last_name, customer_email, created_at, updated_at)
      SELECT 'x', profile_id, profile_name, environment, kind, 'pending', external_id, amount, currency, phone_number, payment_method,
      customer_first_name, customer_last_name, customer_email, 1, 1 FROM entries WHERE id = ?`).run(paid.id)).toThrow(/UNIQUE/);
  });
});

describe('the Overview', () => {
  it('counts no refused or never-sent attempt: only what the service created or may have', () => {
    const db = openJournal(`${tempDir()}/journal.db`);
    recordInitiateOutcome(db, payout(db, 'A', 10).id, accepted('A', 1000), 11);
    recordInitiateOutcome(db, payout(db, 'B', 12, 700).id, RATE_LIMITED, 13);
    recordInitiateOutcome(db, payout(db, 'C', 14, 300).id, { kind: 'refused', error: { code: 'INVALID_PHONE', message: 'bad phone', httpStatus: 400 } }, 15);
    payout(db, 'D', 16, 50); // in flight: it may exist
    const days = Array.from({ length: 8 }, (_, i) => i * 86_400_000 - 6 * 86_400_000);
    const { today } = readOverview(db, { profile: PROFILE, dayBoundaries: days, now: days[7]! });
    expect(today.total).toEqual({ count: 2, amounts: [{ currency: 'XAF', amount: 1050 }] });
    expect(today.byStatus.filter((row) => row.count > 0).map((row) => [row.status, row.count])).toEqual([
      ['completed', 1],
      ['pending', 1],
    ]);
  });

  it('counts a payout adopted after "already exists" once, and the same payout sent again is refused before it is written', () => {
    const db = openJournal(`${tempDir()}/journal.db`);
    recordInitiateOutcome(db, payout(db, 'PAID-1', 10, 900).id, accepted('PAID-1', 900), 11);
    // Sent again (a re-import sent anyway): the journal refuses it; no second entry to count.
    expect(() => payout(db, 'PAID-1', 12, 900)).toThrow(ExternalIdKnown);
    // An adopted payout this journal never saw created (another desktop's) is counted: it is the only record.
    const foreign = payout(db, 'ELSEWHERE-1', 15, 400);
    recordInitiateOutcome(db, foreign.id, { kind: 'exists', error: { code: 'VALIDATION_ERROR', message: 'external_id has already been used', httpStatus: 422 } }, 16);
    recordObserved(db, foreign.id, accepted('ELSEWHERE-1', 400).tx, { type: 'status_seen', httpStatus: 200, message: 'found by its external id' }, 17);
    const days = Array.from({ length: 8 }, (_, i) => i * 86_400_000 - 6 * 86_400_000);
    const { today } = readOverview(db, { profile: PROFILE, dayBoundaries: days, now: days[7]! });
    expect(today.total).toEqual({ count: 2, amounts: [{ currency: 'XAF', amount: 1300 }] });
  });
});

describe('journal migration 10 (one entry per payout)', () => {
  it('folds the entries an older version wrote twice for one payout, and keeps two payments the service made apart', () => {
    const file = `${tempDir()}/journal.db`;
    const old = new Database(file);
    for (const migration of MIGRATIONS.filter((m) => m.version <= 9)) {
      old.exec(migration.sql);
      old.pragma(`user_version = ${migration.version}`);
    }
    const entry = old.prepare(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, status, amount, currency, phone_number,
         payment_method, customer_first_name, customer_last_name, customer_email, transaction_id, already_sent_at, batch_id, batch_row, created_at, updated_at)
       VALUES (?, 'p1', 'Acme', 'sandbox', 'payout', ?, ?, ?, 1000, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Prime', 'a@example.com', ?, ?, ?, ?, ?, ?)`,
    );
    const event = old.prepare(`INSERT INTO timeline (entry_seq, type, at, http_status) VALUES ((SELECT seq FROM entries WHERE id = ?), ?, ?, ?)`);
    // ADOPT-1: paid by batch b1 row 2, then the file sent again (batch b2): refused as existing, adopted.
    entry.run('first', 'known', 'ADOPT-1', 'completed', 'tx-1', null, 'b1', 2, 1, 2);
    event.run('first', 'response', 2, 200);
    entry.run('second', 'known', 'ADOPT-1', 'completed', 'tx-1', 5, 'b2', 2, 4, 5);
    event.run('second', 'status_seen', 5, 200);
    // TWICE-1: a service that accepted the same id twice paid it twice: two transactions, both kept.
    entry.run('paid-a', 'known', 'TWICE-1', 'completed', 'tx-a', null, null, null, 6, 6);
    entry.run('paid-b', 'known', 'TWICE-1', 'completed', 'tx-b', null, null, null, 7, 7);
    for (const [seq, id] of [[1, 'b1'], [2, 'b2']] as const) {
      old.prepare(
        `INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, concurrency, created_at, updated_at)
         VALUES (?, 'pay.csv', 'h', 'done', 'p1', 'Acme', 'sandbox', 4, 1, 1)`,
      ).run(id);
      old.prepare(`INSERT INTO batch_rows (batch_seq, row_number, cells, errors, duplicates, external_id, journal_id) VALUES (?, 2, '{}', '{}', '[]', 'ADOPT-1', ?)`).run(seq, seq === 1 ? 'first' : 'second');
    }
    old.close();

    const db = openJournal(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    expect(db.prepare('SELECT id FROM entries ORDER BY seq').pluck().all()).toEqual(['first', 'paid-a', 'paid-b']);
    expect(getTimeline(db, 'first').map((event) => event.type).reverse()).toEqual(['response', 'status_seen']);
    // Both batches' rows name the one payout.
    expect(db.prepare('SELECT journal_id FROM batch_rows ORDER BY batch_seq').pluck().all()).toEqual(['first', 'first']);
    expect(db.prepare(`SELECT id FROM entries WHERE legacy_duplicate = 1`).pluck().all()).toEqual(['paid-b']);
    expect(searchJournal(db, { externalId: 'ADOPT-1' }, 0, 10).total).toBe(1);
  });
});

describe('journal migration 8', () => {
  it('folds the attempts of an older journal into their payout: events, batch and Reconcile rows, and leaves the rest', () => {
    const file = `${tempDir()}/journal.db`;
    const old = new Database(file);
    for (const migration of MIGRATIONS.filter((m) => m.version <= 7)) {
      old.exec(migration.sql);
      old.pragma(`user_version = ${migration.version}`);
    }
    const entry = old.prepare(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, resolution, external_id, status, amount, currency, phone_number,
         payment_method, customer_first_name, customer_last_name, customer_email, last_error, transaction_id, created_at, updated_at)
       VALUES (?, 'p1', 'Acme', 'sandbox', 'payout', ?, ?, ?, ?, ?, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Prime', 'a@example.com', ?, ?, ?, ?)`,
    );
    const event = old.prepare(`INSERT INTO timeline (entry_seq, type, at, http_status, code) VALUES ((SELECT seq FROM entries WHERE id = ?), ?, ?, ?, ?)`);
    const notSent = (code: string) => JSON.stringify({ code: 'NOT_SENT', message: 'Too many requests', httpStatus: 429, cause: code });
    // PRIME-DEC-019: a 429 in one batch, a not-found lookup, then paid by a later send (its own entry).
    entry.run('a429', 'rejected', null, 'PRIME-DEC-019', null, 1000, notSent('RATE_LIMIT_EXCEEDED'), null, 1, 2);
    event.run('a429', 'request_sent', 1, null, null);
    event.run('a429', 'api_error', 2, 429, 'RATE_LIMIT_EXCEEDED');
    entry.run('lost', 'outcome_unknown', 'not_found', 'PRIME-DEC-019', null, 1000, null, null, 3, 4);
    event.run('lost', 'request_sent', 3, null, null);
    entry.run('paid', 'known', null, 'PRIME-DEC-019', 'completed', 1000, null, 'tx-19', 5, 6);
    event.run('paid', 'request_sent', 5, null, null);
    event.run('paid', 'response', 6, 200, null);
    // Left alone: a refusal, a lone 429 attempt, another profile's payout.
    entry.run('refused', 'rejected', null, 'PRIME-DEC-020', null, 500, JSON.stringify({ code: 'INVALID_PHONE', message: 'bad', httpStatus: 400 }), null, 7, 7);
    entry.run('paid-20', 'known', null, 'PRIME-DEC-020', 'completed', 500, null, 'tx-20', 8, 8);
    entry.run('lone', 'rejected', null, 'PRIME-DEC-021', null, 300, notSent('RATE_LIMIT_EXCEEDED'), null, 9, 9);
    old.prepare(`UPDATE entries SET profile_id = 'p2' WHERE id = 'paid-20'`).run();
    old.prepare(
      `INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, concurrency, created_at, updated_at)
       VALUES ('b1', 'prime.csv', 'h', 'cancelled', 'p1', 'Acme', 'sandbox', 4, 1, 1)`,
    ).run();
    old.prepare(`INSERT INTO batch_rows (batch_seq, row_number, cells, errors, duplicates, external_id, journal_id) VALUES (1, 19, '{}', '{}', '[]', 'PRIME-DEC-019', 'a429')`).run();
    old.prepare(
      `INSERT INTO reconciliations (id, file_name, profile_id, profile_name, environment, status, phase, total_rows, processing_minutes, currency, created_at, updated_at)
       VALUES ('r1', 'orders.csv', 'p1', 'Acme', 'sandbox', 'done', 'matching', 1, 30, 'XAF', 1, 1)`,
    ).run();
    old.prepare(`INSERT INTO reconciliation_rows (reconciliation_id, row_number, source, external_id, kind, journal_id) VALUES ('r1', 2, 'file', 'PRIME-DEC-019', 'payout', 'lost')`).run();
    old.close();

    const db = openJournal(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    const ids = (db.prepare('SELECT id FROM entries ORDER BY seq').pluck().all() as string[]);
    expect(ids).toEqual(['paid', 'refused', 'paid-20', 'lone']);
    expect(getTimeline(db, 'paid').map((event) => [event.type, event.httpStatus]).reverse()).toEqual([
      ['request_sent', null],
      ['api_error', 429],
      ['request_sent', null],
      ['request_sent', null],
      ['response', 200],
    ]);
    expect(db.prepare(`SELECT journal_id FROM batch_rows`).pluck().get()).toBe('paid');
    expect(db.prepare(`SELECT journal_id FROM reconciliation_rows`).pluck().get()).toBe('paid');
    expect(searchJournal(db, { externalId: 'PRIME-DEC-019' }, 0, 10).rows.map((row) => row.state)).toEqual(['known']);
    // The search index follows the removed rows.
    expect(searchJournal(db, { text: 'PRIME-DEC-019' }, 0, 10).total).toBe(1);
  });
});
