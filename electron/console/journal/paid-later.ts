/**
 * A refused entry whose payout was created later under the same external id (refused with an
 * error code, the row fixed or retried with its id kept, then paid). The refusal stays an entry of
 * its own (docs/decisions/attempts-belong-to-their-payout.md); History marks it "refused, paid
 * later" and links to the entry that was paid, so nobody reads REJECTED for a paid customer.
 */
import type { JournalTransaction } from '../../../shared/api';
import type { JournalDb } from './database';

/** The first later entry of the same payout (profile, environment, kind, external id) that the service created. */
const PAID_LATER = `SELECT id, status FROM entries INDEXED BY entries_by_external_id
  WHERE external_id = ? AND kind = ? AND profile_id = ? AND environment = ? AND state = 'known' AND id != ? AND created_at >= ?
  ORDER BY created_at, seq LIMIT 1`;

/** The entries with `paidLater` set on each refused one that a later entry paid (one indexed read per refused entry). */
export function withPaidLater(db: JournalDb, entries: JournalTransaction[]): JournalTransaction[] {
  if (!entries.some((entry) => entry.state === 'rejected')) return entries;
  const statement = db.prepare(PAID_LATER);
  return entries.map((entry) => {
    if (entry.state !== 'rejected' || entry.externalId === null) return entry;
    const later = statement.get(entry.externalId, entry.kind, entry.profileId, entry.environment, entry.id, Date.parse(entry.createdAt)) as
      | { id: string; status: JournalTransaction['status'] }
      | undefined;
    return later ? { ...entry, paidLater: { journalId: later.id, status: later.status } } : entry;
  });
}
