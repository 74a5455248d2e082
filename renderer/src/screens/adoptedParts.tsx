/**
 * What an entry's identity says beyond its status (issue 23, review): adopted under its external id
 * though the service's transaction went to another recipient or amount ("not what was asked"),
 * and a refusal whose payout a later request with the same id created ("refused, paid later").
 * Only words: nothing is ever sent from here to "fix" either (that would be paying twice).
 */
import { useTranslation } from 'react-i18next';
import type { AdoptedDifference, JournalTransaction } from '../../../shared/api';
import { formatMoney } from '../format/money';
import { useUi } from '../stores';

/** The sentence's parameters: where the earlier payout went, and what this request asked. */
export function adoptedWords(difference: AdoptedDifference): { to: string; amount: string; askedTo: string; askedAmount: string } {
  return {
    to: difference.found.accountNumber,
    amount: formatMoney(difference.found.amount, difference.found.currency),
    askedTo: difference.asked.phoneNumber,
    askedAmount: formatMoney(difference.asked.amount, difference.asked.currency),
  };
}

/** At the top of an entry (the single send's result is this screen): a paid badge must not hide it. */
export function AdoptedDiffersNotice({ tx }: { tx: JournalTransaction }) {
  const { t: tr } = useTranslation('transaction');
  if (tx.answerDiffers) {
    return (
      <div className="notice notice-warn" role="note" data-testid="answer-differs">
        <strong>{tr('facts.answerDiffers', { ...adoptedWords(tx.answerDiffers), kind: tr(`kindWord.${tx.kind}`) })}</strong>
        <p>{tr('facts.answerDiffersBody')}</p>
      </div>
    );
  }
  if (!tx.adoptedDiffers) return null;
  return (
    <div className="notice notice-warn" role="note" data-testid="adopted-differs">
      <strong>{tr('facts.adoptedDiffers', { ...adoptedWords(tx.adoptedDiffers), kind: tr(`kindWord.${tx.kind}`) })}</strong>
      <p>{tr('facts.adoptedDiffersBody')}</p>
    </div>
  );
}

/** A refused entry whose payout was created later under the same external id: says so and opens that entry. */
export function PaidLaterNotice({ tx }: { tx: JournalTransaction }) {
  const { t: tr } = useTranslation('transaction');
  const openTransaction = useUi((s) => s.openTransaction);
  if (!tx.paidLater) return null;
  const { journalId } = tx.paidLater;
  return (
    <div className="notice notice-info" role="note" data-testid="paid-later">
      <strong>{tr('facts.paidLater')}</strong>
      <p>{tr('facts.paidLaterBody')}</p>
      <div className="actions left">
        <button type="button" className="secondary small" onClick={() => openTransaction(journalId)}>
          {tr('facts.openPaidLater')}
        </button>
      </div>
    </div>
  );
}
