/**
 * The local sandbox: engine status, keys for your own app, the outcome-by-phone table with
 * "use this number", wallet and top-up, the request inspector and sign helper, webhooks and
 * deliveries, and the clock and maintenance controls. Another profile active: a calm explanation instead of errors.
 */
import { useEffect, useState } from 'react';
import type { ApiFailure, Result } from '../../../shared/api';
import { describeFailedCode } from '../messages/errors';
import { CopyButton, Empty, ErrorNotice, Loading } from '../components/common';
import { formatMoney, parseAmount } from '../format/money';
import { formatDateTime } from '../format/time';
import { useSandbox, useUi } from '../stores';
import { SandboxDeliveries } from './SandboxDeliveries';
import { SandboxRequests } from './SandboxRequests';
import { SandboxSignHelper } from './SandboxSignHelper';

/** Runs a control and keeps its failure for display. */
export function useControl() {
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  async function run<T>(call: () => Promise<Result<T>>): Promise<boolean> {
    setBusy(true);
    setFailure(null);
    const result = await call();
    setBusy(false);
    if (!result.ok) setFailure(result.error);
    return result.ok;
  }
  return { failure, busy, run };
}

function Outcomes() {
  const outcomes = useSandbox((s) => s.outcomes);
  const useNumber = useUi((s) => s.useNumber);
  return (
    <div className="card">
      <h2>Outcomes by phone number</h2>
      <p className="muted small">The sandbox decides each transaction’s fate by its phone number; any other number completes.</p>
      <table className="table">
        <thead>
          <tr><th scope="col">Phone number</th><th scope="col">Outcome</th><th scope="col">Use this number</th></tr>
        </thead>
        <tbody>
          {outcomes.map((o) => (
            <tr key={o.phoneNumber}>
              <td className="mono nowrap">{o.phoneNumber}</td>
              <td>
                <span className={`badge badge-${o.finalStatus}`}>{o.finalStatus}</span> {o.description}
                {o.failedCode ? <div className="muted small">{describeFailedCode(o.failedCode)}</div> : null}
              </td>
              <td className="nowrap">
                <button type="button" className="secondary small" onClick={() => useNumber(o.phoneNumber, 'payment')} aria-label={`Use ${o.phoneNumber} for a payment`}>Payment</button>{' '}
                <button type="button" className="secondary small" onClick={() => useNumber(o.phoneNumber, 'payout')} aria-label={`Use ${o.phoneNumber} for a payout`}>Payout</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Wallet() {
  const wallet = useSandbox((s) => s.wallet);
  const topUp = useSandbox((s) => s.topUp);
  const control = useControl();
  const [environment, setEnvironment] = useState<'sandbox' | 'live'>('sandbox');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('Top-up from the console');
  const [error, setError] = useState<string | null>(null);
  const currency = wallet?.balances.find((b) => b.environment === environment)?.currency ?? 'XAF';
  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const parsed = parseAmount(amount, currency);
    if ('error' in parsed) return setError(`Amount ${parsed.error}.`);
    setError(null);
    if (await control.run(() => topUp({ environment, amount: parsed.amount, reason }))) setAmount('');
  }
  return (
    <div className="card">
      <h2>Wallet</h2>
      <div className="balances">
        {(wallet?.balances ?? []).map((b) => (
          <div key={b.environment} className="balance-tile">
            <span className="muted">{b.environment}</span>
            <strong>{formatMoney(b.balance, b.currency)}</strong>
          </div>
        ))}
      </div>
      <form className="inline-form" onSubmit={(e) => void submit(e)} aria-label="Top up the wallet">
        <label>Environment
          <select value={environment} onChange={(e) => setEnvironment(e.target.value as 'sandbox' | 'live')}>
            <option value="sandbox">sandbox</option>
            <option value="live">live</option>
          </select>
        </label>
        <label>Top-up amount ({currency})
          <input inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} aria-invalid={error ? true : undefined} />
        </label>
        <label>Reason
          <input value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={control.busy}>Top up</button>
      </form>
      {error ? <div className="field-error" role="alert">{error}</div> : null}
      {control.failure ? <ErrorNotice failure={control.failure} /> : null}
      {wallet && wallet.ledger.length > 0 ? (
        <details>
          <summary>Ledger ({wallet.ledger.length})</summary>
          <table className="table small">
            <tbody>
              {wallet.ledger.slice(0, 50).map((entry) => (
                <tr key={entry.id}><td>{formatDateTime(entry.at)}</td><td>{entry.reason}</td><td className="num">{entry.amount.toLocaleString('en')}</td></tr>
              ))}
            </tbody>
          </table>
        </details>
      ) : null}
    </div>
  );
}

function Controls() {
  const engine = useSandbox((s) => s.engine);
  const settle = useSandbox((s) => s.settle);
  const advanceClock = useSandbox((s) => s.advanceClock);
  const setMaintenance = useSandbox((s) => s.setMaintenance);
  const control = useControl();
  const [transactionId, setTransactionId] = useState('');
  const [minutes, setMinutes] = useState('60');
  const [note, setNote] = useState<string | null>(null);
  // The switch shows the asked-for position while the engine applies it.
  const [maintenanceWanted, setMaintenanceWanted] = useState<boolean | null>(null);
  if (!engine) return null;
  const maintenance = maintenanceWanted ?? engine.maintenance;
  return (
    <div className="card">
      <h2>Controls</h2>
      <form className="inline-form" aria-label="Settle now" onSubmit={(e) => { e.preventDefault(); const id = transactionId.trim(); if (id) void control.run(() => settle(id)).then((ok) => ok && setNote(`Settled ${id}.`)); }}>
        <label>Transaction id to settle now
          <input value={transactionId} onChange={(e) => setTransactionId(e.target.value)} placeholder="TE_…" />
        </label>
        <button type="submit" className="secondary" disabled={control.busy || !transactionId.trim()}>Settle now</button>
      </form>
      <form className="inline-form" aria-label="Advance the clock" onSubmit={(e) => { e.preventDefault(); const m = Number(minutes); if (Number.isInteger(m) && m > 0) void control.run(() => advanceClock(m * 60)); else setNote('Minutes must be a whole number above 0.'); }}>
        <label>Advance the clock by (minutes)
          <input inputMode="numeric" value={minutes} onChange={(e) => setMinutes(e.target.value)} />
        </label>
        <button type="submit" className="secondary" disabled={control.busy}>Advance clock</button>
        <span className="muted small">Offset now {Math.round(engine.clockOffsetSeconds / 60)} min</span>
      </form>
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={maintenance}
          disabled={maintenanceWanted !== null}
          onChange={(e) => {
            const on = e.target.checked;
            setMaintenanceWanted(on);
            void control.run(() => setMaintenance(on)).finally(() => setMaintenanceWanted(null));
          }}
        />
        Maintenance mode {maintenance ? '(on: the API answers 503 MAINTENANCE_MODE)' : '(off)'}
      </label>
      {note ? <p className="muted" role="status">{note}</p> : null}
      {control.failure ? <ErrorNotice failure={control.failure} /> : null}
    </div>
  );
}

export function SandboxScreen() {
  const status = useSandbox((s) => s.status);
  const error = useSandbox((s) => s.error);
  const engine = useSandbox((s) => s.engine);
  const load = useSandbox((s) => s.load);
  const navigate = useUi((s) => s.navigate);
  useEffect(() => {
    void load();
    // Webhook attempts happen in the engine without a push: read them again while the panel is open.
    const timer = setInterval(() => void load(), 3000);
    return () => clearInterval(timer);
  }, [load]);
  return (
    <section className="screen wide" aria-labelledby="sandbox-title">
      <header className="screen-head">
        <h1 id="sandbox-title">Local sandbox</h1>
        <p className="muted">A complete copy of the API running on this computer, with test keys and predictable outcomes.</p>
      </header>
      {status === 'loading' || status === 'idle' ? <Loading label="Loading sandbox" /> : null}
      {status === 'unavailable' ? (
        <Empty>
          The sandbox controls work with the Local sandbox profile only.{' '}
          <button type="button" className="link" onClick={() => navigate('settings')}>Switch profile in Settings</button>
        </Empty>
      ) : null}
      {status === 'error' && error ? <ErrorNotice failure={error} /> : null}
      {status === 'ready' && engine ? (
        <>
          <div className="card engine">
            <h2>Engine</h2>
            <p>
              <span className={`dot-status ${engine.running ? 'on' : 'off'}`} aria-hidden="true" />
              <strong>{engine.running ? 'Running' : 'Stopped'}</strong>
              {engine.url ? <> at <span className="mono">{engine.url}</span> <CopyButton value={engine.url} label="engine URL" /></> : null}
              {engine.maintenance ? <span className="badge badge-processing">maintenance</span> : null}
            </p>
            {engine.error ? <div className="notice notice-error" role="alert">{engine.error}</div> : null}
            <table className="table keys-table">
              <thead><tr><th scope="col">Environment</th><th scope="col">Type</th><th scope="col">Public key</th><th scope="col">Secret key</th></tr></thead>
              <tbody>
                {engine.keys.map((k) => (
                  <tr key={`${k.environment}-${k.type}`}>
                    <td>{k.environment}</td><td>{k.type}</td>
                    <td><span className="mono small">{k.publicKey}</span> <CopyButton value={k.publicKey} label={`${k.environment} ${k.type} public key`} /></td>
                    <td><span className="muted small">hidden</span> <CopyButton value={k.secretKey} label={`${k.environment} ${k.type} secret key`} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="two-col">
            <Outcomes />
            <div>
              <Wallet />
              <Controls />
            </div>
          </div>
          <SandboxRequests />
          <SandboxSignHelper />
          <SandboxDeliveries />
        </>
      ) : null}
    </section>
  );
}
