/**
 * The journal is the only guard against paying twice (docs/decisions/journal-is-the-idempotency-guard.md).
 *
 * The spec never says the service refuses a second payout with the same external id, so Paydesk
 * never POSTs an external id its journal (or workspace) holds as pending, outcome unknown or known
 * (adopted included), whatever profile sent it, in the same environment and of the same kind. An
 * earlier attempt that certainly created nothing (a 429 or a request that never left: not_sent; a
 * 4xx refusal: rejected; a look-up that answered a definite 404: not_found) is the same payout
 * tried again: that entry is continued, never a second one written. Both stores decide with
 * `decideIdentity`, inside the transaction that writes the pending entry (the workspace locks the
 * rows it reads; a unique index on the payout's key catches the rest).
 */
import type { TransactionKind } from '../../../shared/api';
import { phaseOf, type PhaseColumns } from './phase';

/** What the guard reads of an entry holding the external id. */
export interface HeldEntry extends PhaseColumns {
  id: string;
  profile_id: string;
  profile_name: string;
  kind: TransactionKind;
  external_id: string | null;
  status: string | null;
  batch_id?: string | null;
  batch_row?: number | null;
  created_at: number;
}

/** The payout (or payment) an external id already names, for the refusal's words and the screen's link. */
export interface KnownPayout {
  journalId: string;
  externalId: string;
  kind: TransactionKind;
  profileName: string;
  /** The entry's phase: pending, outcome_unknown or known. */
  phase: 'pending' | 'outcome_unknown' | 'known';
  status: string | null;
  batchId: string | null;
  rowNumber: number | null;
  createdAt: string;
}

/** The refusal of a write that would POST an external id the journal already holds as money. */
export class ExternalIdKnown extends Error {
  override name = 'ExternalIdKnown';
  readonly code = 'ALREADY_SENT';
  constructor(readonly known: KnownPayout) {
    super(knownMessage(known));
  }
}

function knownMessage(known: KnownPayout): string {
  const what = known.phase === 'known' ? `known to the service${known.status ? `, ${known.status}` : ''}` : known.phase === 'pending' ? 'being sent' : 'sent with an unknown outcome';
  const where = known.batchId ? `, batch ${known.batchId} row ${known.rowNumber ?? '?'}` : '';
  return `External id ${known.externalId} is already a ${known.kind} in the journal (${what}${where}, sent ${known.createdAt} under "${known.profileName}"): it is never sent twice.`;
}

export type IdentityDecision = { kind: 'new' } | { kind: 'continue'; entry: HeldEntry } | { kind: 'known'; known: KnownPayout };

/** Whether an entry in this phase may name money at the service (it is never sent again). */
function mayBeMoney(entry: HeldEntry): 'pending' | 'outcome_unknown' | 'known' | null {
  const phase = phaseOf(entry);
  return phase === 'pending' || phase === 'outcome_unknown' || phase === 'known' ? phase : null;
}

export function knownPayoutOf(entry: HeldEntry, phase: KnownPayout['phase']): KnownPayout {
  return {
    journalId: entry.id,
    externalId: entry.external_id ?? '',
    kind: entry.kind,
    profileName: entry.profile_name,
    phase,
    status: entry.status,
    batchId: entry.batch_id ?? null,
    rowNumber: entry.batch_row ?? null,
    createdAt: new Date(entry.created_at).toISOString(),
  };
}

/**
 * What a new request with this external id does, given every entry holding it in its environment
 * and kind (any profile), newest first: refused when any of them may be money; else the newest
 * of this profile's attempts continued; else a new entry.
 */
export function decideIdentity(entries: readonly HeldEntry[], profileId: string): IdentityDecision {
  const known = firstKnown(entries);
  if (known) return { kind: 'known', known };
  const own = entries.find((entry) => entry.profile_id === profileId);
  return own ? { kind: 'continue', entry: own } : { kind: 'new' };
}

/** The first entry among these that may be money, as a KnownPayout (a draft's rows, the form's check). */
export function firstKnown(entries: readonly HeldEntry[]): KnownPayout | null {
  for (const entry of entries) {
    const phase = mayBeMoney(entry);
    if (phase) return knownPayoutOf(entry, phase);
  }
  return null;
}
