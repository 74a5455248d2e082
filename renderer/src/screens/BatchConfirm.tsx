/**
 * Confirm once: restates profile, environment, rows and totals; a live batch needs its total typed
 * first. Main answers with a single-use token bound to a hash of the whole batch; Send fires once.
 * A rehearsal still running is waited for (Send stays off and says so); none run reads "Skipped".
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { BATCH_DEFAULT_CONCURRENCY, BATCH_MAX_CONCURRENCY, CHANNEL_INPUTS, type ApiFailure, type BatchConfirmation, type BatchPreview, type BatchSummary, type RehearsalSummary } from '../../../shared/api';
import { Dialog } from '../components/Dialog';
import { useSingleFlight } from '../components/useSingleFlight';
import { ErrorNotice, Field, Spinner, describedBy, storedProfileName } from '../components/common';
import { AskApproval } from './AskApproval';
import { currencyLabel, formatCount, formatMoney, parseAmount } from '../format/money';
import { useBatch } from '../stores';
import { BalanceUnreadReason, OverBalanceNotice } from './BatchPreview';
import { SendRefusedNote, useMaySend } from '../components/WorkspaceBar';

const concurrencySchema = CHANNEL_INPUTS['batches:start'].shape.concurrency.unwrap();

export function BatchConfirmDialog({ batch, preview, rehearsal, onClose }: { batch: BatchSummary; preview: BatchPreview; rehearsal: RehearsalSummary | null; onClose: () => void }) {
  const maySend = useMaySend();
  const { t } = useTranslation(['batch', 'common']);
  const prepare = useBatch((s) => s.prepare);
  const start = useBatch((s) => s.start);
  const runPreview = useBatch((s) => s.runPreview);
  const checkingPreview = useBatch((s) => s.preview.status === 'loading');
  const live = batch.environment === 'live';
  const [confirmation, setConfirmation] = useState<BatchConfirmation | null>(null);
  const [typed, setTyped] = useState('');
  const [concurrencyText, setConcurrencyText] = useState(String(BATCH_DEFAULT_CONCURRENCY));
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const fire = useSingleFlight({ once: true });
  const rehearsing = useBatch((s) => s.rehearsing.running);
  const rehearsalProgress = useBatch((s) => (s.progress?.mode === 'rehearsal' ? s.progress : null));
  const cancelButton = useRef<HTMLButtonElement>(null);
  const refusal = useRef<HTMLDivElement>(null);
  const facts = confirmation ?? preview;
  const askApproval = failure?.code === 'APPROVAL_REQUIRED' && failure.approval?.subject === 'batch';
  const currency = facts.currency;
  const typedAmount = parseAmount(typed, currency);
  const typedMatches = 'amount' in typedAmount && typedAmount.amount === preview.totalDebit;
  const concurrency = concurrencySchema.safeParse(Number(concurrencyText.trim() || 'x'));
  const concurrencyErrors = concurrency.success ? undefined : [t('confirm.concurrencyInvalid', { max: BATCH_MAX_CONCURRENCY })];

  // Runs after the Dialog's own focus (a child's layout effect runs first): Cancel is the safe default.
  useLayoutEffect(() => {
    cancelButton.current?.focus();
  }, []);

  // A refusal takes focus: Send is spent or disabled by then, and focus would fall to <body>
  // with the reason read by no one (issue 37 item 7).
  useEffect(() => {
    if (failure) refusal.current?.focus();
  }, [failure]);

  // Sandbox: the token is asked for at once. Live: only after the total has been typed.
  useEffect(() => {
    if (live) return;
    let current = true;
    setBusy(true);
    void prepare().then((result) => {
      if (!current) return;
      setBusy(false);
      if (result.ok) setConfirmation(result.value);
      else setFailure(result.error);
    });
    return () => {
      current = false;
    };
  }, [live, prepare]);

  async function checkTyped() {
    if (busy || !typedMatches || !('amount' in typedAmount)) return;
    setBusy(true);
    setFailure(null);
    const result = await prepare(typedAmount.amount);
    setBusy(false);
    if (result.ok) setConfirmation(result.value);
    else setFailure(result.error);
  }

  /** The balance read again: a new confirmation where one was given (sandbox), else a new preview (live, before the total is typed). */
  async function checkBalanceAgain() {
    if (!confirmation) return runPreview(true);
    setBusy(true);
    // Live: the total typed stays the one confirmed.
    const result = await prepare(live && 'amount' in typedAmount ? typedAmount.amount : undefined);
    setBusy(false);
    if (result.ok) setConfirmation(result.value);
    else setFailure(result.error);
  }

  async function send() {
    if (!confirmation || confirmation.overBalance || !concurrency.success || rehearsing) return;
    const { confirmationToken } = confirmation;
    const workers = concurrency.data;
    // Once fired, never again from this dialog: the token is single-use and the batch must not start twice.
    await fire.run(async () => {
      setBusy(true);
      const result = await start(confirmationToken, workers);
      setBusy(false);
      if (result.ok) onClose();
      else setFailure(result.error);
    });
  }

  return (
    <Dialog title={live ? t('confirm.titleLive') : t('confirm.title')} onClose={() => (busy ? undefined : onClose())} wide>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void (confirmation ? send() : checkTyped());
        }}
      >
        {live ? (
          <p className="notice notice-live" role="note">
            {t('confirm.liveWarning', { count: facts.count, n: formatCount(facts.count) })}
          </p>
        ) : null}
        {facts.bySender ? (
          <p className="notice" role="note">
            {t('confirm.bySender')}
          </p>
        ) : null}
        <dl className="facts facts-pairs">
          <dt>{t('confirm.profile')}</dt>
          <dd>{storedProfileName(facts.profileId, facts.profileName)}</dd>
          <dt>{t('confirm.environment')}</dt>
          <dd>
            <span className={`env-pill env-${facts.environment}`}>{t(`common:environment.${facts.environment}`)}</span>
          </dd>
          <dt>{t('confirm.rows')}</dt>
          <dd>{formatCount(facts.count)}</dd>
          <dt>{t('confirm.amount')}</dt>
          <dd className="amount">{formatMoney(facts.totalAmount, currency)}</dd>
          <dt>{t('confirm.fees')}</dt>
          <dd>{facts.feesKnown && facts.totalFees !== null ? formatMoney(facts.totalFees, currency) : t('preview.feesUnknown')}</dd>
          <dt>{t('confirm.total')}</dt>
          {/* Fees the service charges and this desktop cannot know (any profile but the local engine's) are not in the figure: it says so. */}
          <dd className="amount">{facts.feesKnown ? formatMoney(facts.totalDebit, currency) : t('confirm.totalPlusFees', { amount: formatMoney(facts.totalDebit, currency) })}</dd>
          <dt>{t('confirm.balance')}</dt>
          <dd>{facts.balance === null ? <BalanceUnreadReason preview={facts} checking={busy || checkingPreview} onCheckAgain={() => void checkBalanceAgain()} /> : formatMoney(facts.balance, currency)}</dd>
          <dt>{t('confirm.rehearsal')}</dt>
          <dd className={!rehearsing && rehearsal?.wouldFail ? 'danger-text' : undefined} aria-live="polite">
            {rehearsing
              ? t('confirm.rehearsing', {
                  done: formatCount(rehearsalProgress?.sent ?? 0),
                  total: formatCount(rehearsalProgress ? rehearsalProgress.sent + rehearsalProgress.remaining : facts.count),
                })
              : rehearsal
                ? t('confirm.rehearsed', { failing: formatCount(rehearsal.wouldFail), rows: formatCount(rehearsal.rows) })
                : t('confirm.notRehearsed')}
          </dd>
        </dl>
        <OverBalanceNotice preview={facts} />
        {live && !confirmation ? (
          <Field id="batch-confirm-total" label={t('confirm.typeTotal', { currency: currencyLabel(currency) })} errors={typed && !typedMatches ? [t('confirm.typedMismatch')] : undefined}>
            <input id="batch-confirm-total" inputMode="decimal" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} {...describedBy('batch-confirm-total', typed && !typedMatches ? ['x'] : undefined)} />
          </Field>
        ) : null}
        {confirmation ? (
          <Field id="batch-concurrency" label={t('confirm.concurrency')} errors={concurrencyErrors} hint={t('confirm.concurrencyHint', { max: BATCH_MAX_CONCURRENCY })}>
            <input id="batch-concurrency" className="concurrency" type="number" min={1} max={BATCH_MAX_CONCURRENCY} value={concurrencyText} onChange={(e) => setConcurrencyText(e.target.value)} {...describedBy('batch-concurrency', concurrencyErrors, true)} />
          </Field>
        ) : null}
        {confirmation ? <p className="hint">{t('confirm.once')}</p> : null}
        {failure ? (
          <div ref={refusal} tabIndex={-1} className="refusal" data-testid="batch-confirm-refusal">
            {/* The ask for approval below says what is needed: main's English sentence would say it a second time as "Details". */}
            <ErrorNotice failure={askApproval ? { ...failure, message: '' } : failure} />
          </div>
        ) : null}
        {askApproval && failure?.approval ? <AskApproval need={failure.approval} /> : null}
        <SendRefusedNote />
        <div className="actions">
          <button type="button" className="secondary" ref={cancelButton} onClick={onClose} disabled={fire.busy}>
            {t('common:actions.cancel')}
          </button>
          {confirmation ? (
            <button type="submit" className={live ? 'danger' : 'primary'} disabled={busy || rehearsing || fire.spent || confirmation.overBalance || !concurrency.success || !maySend}>
              {busy || rehearsing ? <Spinner label={busy ? t('confirm.sending') : t('confirm.waitRehearsal')} /> : null}
              {busy ? t('confirm.sending') : rehearsing ? t('confirm.waitRehearsal') : t('confirm.send', { count: confirmation.count, n: formatCount(confirmation.count) })}
            </button>
          ) : live ? (
            <button type="submit" className="danger" disabled={busy || !typedMatches}>
              {busy ? <Spinner label={t('confirm.check')} /> : null}
              {t('confirm.check')}
            </button>
          ) : (
            <Spinner label={t('preview.loading')} />
          )}
        </div>
      </form>
    </Dialog>
  );
}
