/** Lookup: one search box, by transaction id or external id (the choice is remembered). */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure, ChannelResults, TransactionKind } from '../../../shared/api';
import { ErrorNotice, Spinner, profileName } from '../components/common';
import { useSingleFlight } from '../components/useSingleFlight';
import { t as tg } from '../i18n';
import { useProfiles, useTransactions, useUi } from '../stores';
import { activeProfile } from '../stores/profiles';
import { Screen } from '../components/Screen';
import { FollowUpRefusedNote, useMayFollowUp } from '../components/WorkspaceBar';

type By = 'transaction_id' | 'external_id';
const BY_KEY = 'paydesk.lookup.by';
const KIND_KEY = 'paydesk.lookup.kind';

function remembered<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
  try {
    const value = localStorage.getItem(key);
    return allowed.includes(value as T) ? (value as T) : fallback;
  } catch {
    return fallback;
  }
}

function remember(key: string, value: string) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Storage may be off (private mode); the toggle still works for this session.
  }
}

/** What the last lookup answered; cleared by the next one, so no message outlives its action. */
type Outcome = { notFound: string; otherKind: TransactionKind | null; id: string; approval: NotFoundApproval | null } | { failure: ApiFailure } | null;
type NotFoundApproval = NonNullable<Extract<ChannelResults['transactions:lookup'], { found: false }>['approval']>;

/**
 * Not found at the service, but a request for this external id was never sent (a workspace's
 * approval): said as such, with the way to its card, never as a plain "not found".
 */
function ApprovalNotSent({ approval }: { approval: NotFoundApproval }) {
  const { t } = useTranslation('lookup');
  const goTo = useUi((s) => s.goTo);
  const state = approval.state === 'approved' ? 'ready' : approval.state;
  return (
    <p data-testid="lookup-approval">
      <strong>{t(`approval.${state}`, { id: approval.id })}</strong>{' '}
      <button type="button" className="secondary small" onClick={() => goTo({ screen: 'approvals', journalId: null, params: { request: String(approval.id) } })}>
        {t('approval.open', { id: approval.id })}
      </button>
    </p>
  );
}

export function LookupScreen() {
  const { t } = useTranslation('lookup');
  const lookup = useTransactions((s) => s.lookup);
  const active = useProfiles(activeProfile);
  const openTransaction = useUi((s) => s.openTransaction);
  const [by, setBy] = useState<By>(() => remembered(BY_KEY, ['transaction_id', 'external_id'], 'transaction_id'));
  const [kind, setKind] = useState<TransactionKind>(() => remembered(KIND_KEY, ['payment', 'payout'], 'payment'));
  const [text, setText] = useState('');
  const flight = useSingleFlight();
  const busy = flight.busy;
  // A look-up found is recorded: an admin-only login reads, the note says why (start-up-by-role.md).
  const mayRecord = useMayFollowUp();
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [fieldError, setFieldError] = useState<string | null>(null);

  function chooseKind(value: TransactionKind) {
    setKind(value);
    remember(KIND_KEY, value);
  }

  function run(id: string, lookupKind: TransactionKind) {
    void flight.run(async () => {
      setOutcome(null);
      if (!id) {
        setFieldError(t('empty'));
        return;
      }
      setFieldError(null);
      const result = await lookup({ id, by, kind: lookupKind });
      if (!result.ok) setOutcome({ failure: result.error });
      // The page says where it was found: the team's journal (a colleague's payout) or the service.
      else if (result.value.found) openTransaction(result.value.transaction.id, { foundIn: result.value.source });
      else {
        const environment = tg(result.value.environment === 'live' ? 'common:environment.live' : 'common:environment.sandbox');
        setOutcome({
          id,
          // The built-in sandbox profile in the screen's language, as the profile picker names it.
          notFound: t(`notFound.${lookupKind}_${by}`, { id, environment, profile: active?.builtIn && active.name === result.value.profileName ? profileName(active) : result.value.profileName }),
          otherKind: result.value.otherKind ?? null,
          approval: result.value.approval ?? null,
        });
      }
    });
  }

  function submit(event: React.FormEvent) {
    event.preventDefault();
    run(text.trim(), kind);
  }

  function switchKind(other: TransactionKind) {
    chooseKind(other);
    run(outcome && 'id' in outcome ? outcome.id : text.trim(), other);
  }

  return (
    <Screen id="lookup" title={t('title')} intro={t('intro')}>
      <FollowUpRefusedNote />
      {active?.keysWithSender === true ? (
        <p className="notice notice-info followed-by-sender" role="note">
          {t('bySender')}
        </p>
      ) : null}
      <form className="card form" onSubmit={submit} aria-label={t('form')} noValidate>
        <div className="toggles">
          <fieldset className="segmented">
            <legend>{t('kind')}</legend>
            {(['payment', 'payout'] as const).map((value) => (
              <label key={value}>
                <input type="radio" name="lookup-kind" value={value} checked={kind === value} onChange={() => chooseKind(value)} />
                {t(value)}
              </label>
            ))}
          </fieldset>
          <fieldset className="segmented">
            <legend>{t('by')}</legend>
            {(['transaction_id', 'external_id'] as const).map((value) => (
              <label key={value}>
                <input type="radio" name="lookup-by" value={value} checked={by === value} onChange={() => { setBy(value); remember(BY_KEY, value); }} />
                {value === 'transaction_id' ? t('transactionId') : t('externalId')}
              </label>
            ))}
          </fieldset>
        </div>
        <div className="field">
          <label htmlFor="lookup-id">{by === 'transaction_id' ? t('transactionId') : t('externalId')}</label>
          <div className="input-row">
            <input id="lookup-id" type="search" autoComplete="off" value={text} onChange={(e) => setText(e.target.value)} aria-invalid={fieldError ? true : undefined} aria-describedby={fieldError ? 'lookup-id-error' : undefined} placeholder={by === 'transaction_id' ? t('transactionIdPlaceholder') : t('externalIdPlaceholder')} />
            <button type="submit" className="primary" disabled={busy || !mayRecord}>
              {busy ? <Spinner label={t('busy')} /> : null}
              {t('button')}
            </button>
          </div>
          {fieldError ? <div className="field-error" id="lookup-id-error" role="alert">{fieldError}</div> : null}
        </div>
        {outcome && 'notFound' in outcome ? (
          <div className="notice notice-info" role="status">
            <p>{outcome.notFound}</p>
            {outcome.approval ? <ApprovalNotSent approval={outcome.approval} /> : null}
            {outcome.otherKind ? (
              <p>
                {t(`isOther.${outcome.otherKind}`)}{' '}
                <button type="button" className="secondary small" onClick={() => switchKind(outcome.otherKind!)} disabled={busy}>
                  {t(`switchTo.${outcome.otherKind}`)}
                </button>
              </p>
            ) : null}
          </div>
        ) : null}
        {outcome && 'failure' in outcome ? <ErrorNotice failure={outcome.failure} /> : null}
      </form>
    </Screen>
  );
}
