/** Lookup: one search box, by transaction id or external id (the choice is remembered). */
import { useState } from 'react';
import type { ApiFailure } from '../../../shared/api';
import { ErrorNotice, Spinner } from '../components/common';
import { useSingleFlight } from '../components/useSingleFlight';
import { useTransactions, useUi } from '../stores';

type By = 'transaction_id' | 'external_id';
type Kind = 'payment' | 'payout';
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

export function LookupScreen() {
  const lookup = useTransactions((s) => s.lookup);
  const openTransaction = useUi((s) => s.openTransaction);
  const [by, setBy] = useState<By>(() => remembered(BY_KEY, ['transaction_id', 'external_id'], 'transaction_id'));
  const [kind, setKind] = useState<Kind>(() => remembered(KIND_KEY, ['payment', 'payout'], 'payment'));
  const [text, setText] = useState('');
  const flight = useSingleFlight();
  const busy = flight.busy;
  const [notFound, setNotFound] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [fieldError, setFieldError] = useState<string | null>(null);

  function submit(event: React.FormEvent) {
    event.preventDefault();
    void flight.run(async () => {
      setNotFound(null);
      setFailure(null);
      const id = text.trim();
      if (!id) {
        setFieldError('Enter an id to look up.');
        return;
      }
      setFieldError(null);
      const result = await lookup({ id, by, kind });
      if (!result.ok) setFailure(result.error);
      else if (result.value.found) openTransaction(result.value.transaction.id);
      else {
        const what = `${kind === 'payment' ? 'Payment' : 'Payout'} with ${by === 'external_id' ? 'external id' : 'transaction id'} “${id}”`;
        setNotFound(`${what} not found in ${result.value.environment} for ${result.value.profileName}.`);
      }
    });
  }

  return (
    <section aria-labelledby="lookup-title" className="screen">
      <header className="screen-head">
        <h1 id="lookup-title">Look up a transaction</h1>
        <p className="muted">Find a payment or payout by the service’s transaction id or by your own external id.</p>
      </header>
      <form className="card form" onSubmit={submit} aria-label="Look up" noValidate>
        <div className="toggles">
          <fieldset className="segmented">
            <legend>Kind</legend>
            {(['payment', 'payout'] as const).map((value) => (
              <label key={value}>
                <input type="radio" name="lookup-kind" value={value} checked={kind === value} onChange={() => { setKind(value); remember(KIND_KEY, value); }} />
                {value === 'payment' ? 'Payment' : 'Payout'}
              </label>
            ))}
          </fieldset>
          <fieldset className="segmented">
            <legend>Search by</legend>
            {(['transaction_id', 'external_id'] as const).map((value) => (
              <label key={value}>
                <input type="radio" name="lookup-by" value={value} checked={by === value} onChange={() => { setBy(value); remember(BY_KEY, value); }} />
                {value === 'transaction_id' ? 'Transaction id' : 'External id'}
              </label>
            ))}
          </fieldset>
        </div>
        <div className="field">
          <label htmlFor="lookup-id">{by === 'transaction_id' ? 'Transaction id' : 'External id'}</label>
          <div className="input-row">
            <input id="lookup-id" type="search" autoComplete="off" value={text} onChange={(e) => setText(e.target.value)} aria-invalid={fieldError ? true : undefined} aria-describedby={fieldError ? 'lookup-id-error' : undefined} placeholder={by === 'transaction_id' ? 'TE_…' : 'your reference'} />
            <button type="submit" className="primary" disabled={busy}>
              {busy ? <Spinner label="Looking up" /> : null}
              Look up
            </button>
          </div>
          {fieldError ? <div className="field-error" id="lookup-id-error" role="alert">{fieldError}</div> : null}
        </div>
        {notFound ? (
          <div className="notice notice-info" role="status">
            {notFound}
          </div>
        ) : null}
        {failure ? <ErrorNotice failure={failure} /> : null}
      </form>
    </section>
  );
}
