/**
 * "Refused, paid later" in a team workspace: the same mark as the SQLite journal's
 * (../../journal/paid-later.ts), every refused entry of a page answered by one statement (one
 * round trip to the server, not one per entry), each read on entries_by_payout (its external id first).
 */
import type { JournalTransaction } from '../../../../shared/api';
import type { Queryable } from './db';

/** For each refused entry, the first later entry of the same payout (profile, environment, kind, external id) that the service created. */
const PAID_LATER = `SELECT DISTINCT ON (r.id) r.id AS refused_id, e.id, e.status
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) AS r(id, external_id, kind, profile_id, environment, created_at)
  JOIN entries e ON e.external_id = r.external_id AND e.kind = r.kind AND e.profile_id = r.profile_id AND e.environment = r.environment
    AND e.state = 'known' AND e.id <> r.id AND e.created_at >= r.created_at
  ORDER BY r.id, e.created_at, e.seq`;

export async function paidLaterWorkspace(c: Queryable, entries: JournalTransaction[]): Promise<JournalTransaction[]> {
  const refused = entries.filter((entry) => entry.state === 'rejected' && entry.externalId !== null);
  if (refused.length === 0) return entries;
  const { rows } = await c.query<{ refused_id: string; id: string; status: JournalTransaction['status'] }>(PAID_LATER, [
    refused.map((entry) => entry.id),
    refused.map((entry) => entry.externalId),
    refused.map((entry) => entry.kind),
    refused.map((entry) => entry.profileId),
    refused.map((entry) => entry.environment),
    refused.map((entry) => Date.parse(entry.createdAt)),
  ]);
  const later = new Map(rows.map((row) => [row.refused_id, row]));
  return entries.map((entry) => {
    const paid = entry.state === 'rejected' ? later.get(entry.id) : undefined;
    return paid ? { ...entry, paidLater: { journalId: paid.id, status: paid.status } } : entry;
  });
}
