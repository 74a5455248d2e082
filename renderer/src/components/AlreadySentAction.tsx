/**
 * Under an ALREADY_SENT refusal (the journal already holds the external id as a payout or payment):
 * the way to the record it already is, instead of a second send.
 */
import type { ApiFailure } from '../../../shared/api';
import { useUi } from '../stores';

export function AlreadySentAction({ failure, label }: { failure: ApiFailure | null; label: string }) {
  const openTransaction = useUi((s) => s.openTransaction);
  if (failure?.code !== 'ALREADY_SENT' || !failure.journalId) return null;
  const journalId = failure.journalId;
  return (
    <div className="actions left before-fields">
      <button type="button" className="secondary small" data-testid="open-existing" onClick={() => openTransaction(journalId)}>
        {label}
      </button>
    </div>
  );
}
