/**
 * The local sandbox: engine status, keys for your own app, the outcome-by-phone table with
 * "use this number", wallet and top-up, the request inspector and sign helper, webhooks and
 * deliveries, the clock and maintenance controls, and the service variants. Another profile active: a calm explanation instead of errors.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { describeFailedCode } from '../messages/errors';
import { CopyButton, Empty, ErrorNotice, Loading, statusLabel } from '../components/common';
import { translateFieldError } from '../messages/fields';
import { currencyLabel, formatCount, formatMoney, parseAmount } from '../format/money';
import { formatDateTime } from '../format/time';
import { useProfiles, useSandbox, useUi } from '../stores';
import { activeProfile } from '../stores/profiles';
import { useControl } from '../components/useControl';
import { SandboxDeliveries } from './SandboxDeliveries';
import { SandboxLimits } from './SandboxLimits';
import { DeveloperAccess } from './SandboxAccess';
import { SandboxRecordings, SandboxScenarios } from './SandboxScenarios';
import { SandboxRequests } from './SandboxRequests';
import { SandboxSignHelper } from './SandboxSignHelper';
import { SandboxVariants } from './SandboxVariants';
import { Screen } from '../components/Screen';

function Outcomes() {
  const { t } = useTranslation(['sandbox', 'common']);
  const outcomes = useSandbox((s) => s.outcomes);
  const useNumber = useUi((s) => s.useNumber);
  return (
    <div className="card">
      <h2>{t('outcomes.title')}</h2>
      <p className="muted small">{t('outcomes.intro')}</p>
      <table className="table">
        <thead>
          <tr><th scope="col">{t('outcomes.phone')}</th><th scope="col">{t('outcomes.outcome')}</th><th scope="col">{t('outcomes.use')}</th></tr>
        </thead>
        <tbody>
          {outcomes.map((o) => (
            <tr key={o.phoneNumber}>
              <td className="mono nowrap">{o.phoneNumber}</td>
              <td>
                <span className={`badge badge-${o.finalStatus}`}>{statusLabel(o.finalStatus)}</span>{' '}
                {o.behaviour === 'expires' ? t('outcomes.expires') : o.behaviour === 'needs-verify' ? t('outcomes.needsVerify') : null}
                {o.failedCode ? <div className="muted small">{describeFailedCode(o.failedCode)}</div> : null}
              </td>
              <td>
                <div className="use-number">
                  <button type="button" className="secondary small" onClick={() => useNumber(o.phoneNumber, 'payment')} aria-label={t('outcomes.usePayment', { phone: o.phoneNumber })}>{t('outcomes.payment')}</button>
                  <button type="button" className="secondary small" onClick={() => useNumber(o.phoneNumber, 'payout')} aria-label={t('outcomes.usePayout', { phone: o.phoneNumber })}>{t('outcomes.payout')}</button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Wallet() {
  const { t } = useTranslation(['sandbox', 'common']);
  const wallet = useSandbox((s) => s.wallet);
  const topUp = useSandbox((s) => s.topUp);
  const control = useControl();
  const [environment, setEnvironment] = useState<'sandbox' | 'live'>('sandbox');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState<string>(() => t('wallet.defaultReason'));
  const [error, setError] = useState<string | null>(null);
  const currency = wallet?.balances.find((b) => b.environment === environment)?.currency ?? 'XAF';
  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const parsed = parseAmount(amount, currency);
    if ('error' in parsed) return setError(t('wallet.amountError', { error: translateFieldError(parsed.error) }));
    setError(null);
    if (await control.run(() => topUp({ environment, amount: parsed.amount, reason }))) setAmount('');
  }
  return (
    <div className="card">
      <h2>{t('wallet.title')}</h2>
      <div className="balances">
        {(wallet?.balances ?? []).map((b) => (
          <div key={b.environment} className="balance-tile">
            <span className="muted">{b.environment === 'live' || b.environment === 'sandbox' ? t(`common:environment.${b.environment}`) : b.environment}</span>
            <strong>{formatMoney(b.balance, b.currency)}</strong>
          </div>
        ))}
      </div>
      <form className="inline-form" onSubmit={(e) => void submit(e)} aria-label={t('wallet.form')}>
        <label>{t('wallet.environment')}
          <select value={environment} onChange={(e) => setEnvironment(e.target.value as 'sandbox' | 'live')}>
            <option value="sandbox">{t('common:environment.sandbox')}</option>
            <option value="live">{t('common:environment.live')}</option>
          </select>
        </label>
        <label>{t('wallet.amount', { currency: currencyLabel(currency) })}
          <input inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} aria-invalid={error ? true : undefined} />
        </label>
        <label className="grow full-row">{t('wallet.reason')}
          <input value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={control.busy}>{t('wallet.submit')}</button>
      </form>
      {error ? <div className="field-error" role="alert">{error}</div> : null}
      {control.failure ? <ErrorNotice failure={control.failure} /> : null}
      {wallet && wallet.ledger.length > 0 ? (
        <details>
          <summary>{t('wallet.ledger', { total: formatCount(wallet.ledger.length) })}</summary>
          <table className="table small">
            <tbody>
              {wallet.ledger.slice(0, 50).map((entry) => (
                <tr key={entry.id}><td>{formatDateTime(entry.at)}</td><td>{entry.reason}</td><td className="num">{formatCount(entry.amount)}</td></tr>
              ))}
            </tbody>
          </table>
        </details>
      ) : null}
    </div>
  );
}

function Controls() {
  const { t } = useTranslation(['sandbox', 'common']);
  const engine = useSandbox((s) => s.engine);
  const settle = useSandbox((s) => s.settle);
  const advanceClock = useSandbox((s) => s.advanceClock);
  const resetClock = useSandbox((s) => s.resetClock);
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
      <h2>{t('controls.title')}</h2>
      <form className="inline-form" aria-label={t('controls.settleForm')} onSubmit={(e) => { e.preventDefault(); const id = transactionId.trim(); if (id) void control.run(() => settle(id)).then((ok) => ok && setNote(t('controls.settled', { id }))); }}>
        <label>{t('controls.settleId')}
          <input value={transactionId} onChange={(e) => setTransactionId(e.target.value)} placeholder="TE_…" />
        </label>
        <button type="submit" className="secondary" disabled={control.busy || !transactionId.trim()}>{t('controls.settle')}</button>
      </form>
      <form className="inline-form" aria-label={t('controls.clockForm')} onSubmit={(e) => { e.preventDefault(); const m = Number(minutes); if (Number.isInteger(m) && m > 0) void control.run(() => advanceClock(m * 60)); else setNote(t('controls.minutesError')); }}>
        <label>{t('controls.minutes')}
          <input inputMode="numeric" value={minutes} onChange={(e) => setMinutes(e.target.value)} />
        </label>
        <button type="submit" className="secondary" disabled={control.busy}>{t('controls.advance')}</button>
        <span className="muted small">{t('controls.offset', { minutes: formatCount(Math.round(engine.clockOffsetSeconds / 60)) })}</span>
        <button type="button" className="secondary" title={t('controls.resetHint')} disabled={control.busy || engine.clockOffsetSeconds === 0} onClick={() => void control.run(() => resetClock()).then((ok) => ok && setNote(t('controls.resetDone')))}>
          {t('controls.reset')}
        </button>
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
        {t('controls.maintenance')} {maintenance ? t('controls.maintenanceOn') : t('controls.maintenanceOff')}
      </label>
      {note ? <p className="muted" role="status">{note}</p> : null}
      {control.failure ? <ErrorNotice failure={control.failure} /> : null}
    </div>
  );
}

export function SandboxScreen() {
  const { t } = useTranslation(['sandbox', 'common']);
  const status = useSandbox((s) => s.status);
  const error = useSandbox((s) => s.error);
  const engine = useSandbox((s) => s.engine);
  const load = useSandbox((s) => s.load);
  const navigate = useUi((s) => s.navigate);
  // Another profile active (the team's sandbox, a service): these controls still drive this desktop's engine, not its.
  const elsewhere = useProfiles((s) => {
    const active = activeProfile(s);
    return active && !active.builtIn ? active.name : null;
  });
  useEffect(() => {
    void load();
    // Webhook attempts happen in the engine without a push: read them again while the panel is open.
    const timer = setInterval(() => void load(), 3000);
    return () => clearInterval(timer);
  }, [load]);
  return (
    <Screen id="sandbox" title={t('title')} intro={t('intro')} width="wide">
      {status === 'loading' || status === 'idle' ? <Loading label={t('loading')} /> : null}
      {status === 'unavailable' ? (
        <Empty>
          {t('unavailable')}{' '}
          <button type="button" className="link" onClick={() => navigate('settings')}>{t('switchProfile')}</button>
        </Empty>
      ) : null}
      {status === 'error' && error ? <ErrorNotice failure={error} /> : null}
      {status === 'ready' && engine ? (
        <>
          {elsewhere ? (
            <p className="notice notice-info" role="note">
              {t('otherProfileActive', { name: elsewhere })}
            </p>
          ) : null}
          <div className="card engine">
            <h2>{t('engine.title')}</h2>
            <p>
              <span className={`dot-status ${engine.running ? 'on' : 'off'}`} aria-hidden="true" />
              <strong>{engine.running ? t('engine.running') : t('engine.stopped')}</strong>
              {engine.url ? <> {t('engine.at')} <span className="mono">{engine.url}</span> <CopyButton value={engine.url} label={t('engine.copyUrl')} /></> : null}
              {engine.maintenance ? <span className="badge badge-processing">{t('engine.maintenance')}</span> : null}
            </p>
            {engine.error ? <div className="notice notice-error" role="alert">{t('engine.notRunning')}</div> : null}
            <table className="table keys-table">
              <thead><tr><th scope="col">{t('engine.environment')}</th><th scope="col">{t('engine.type')}</th><th scope="col">{t('engine.publicKey')}</th><th scope="col">{t('engine.secretKey')}</th></tr></thead>
              <tbody>
                {engine.keys.map((k) => {
                  const names = { environment: t(`common:environment.${k.environment}`), type: t(`keyType.${k.type}`) };
                  return (
                    <tr key={`${k.environment}-${k.type}`}>
                      <td>{names.environment}</td><td>{names.type}</td>
                      <td><span className="mono nowrap small">{k.publicKey}</span> <CopyButton value={k.publicKey} label={t('engine.copyPublic', names)} /></td>
                      <td><span className="muted small">{t('engine.hidden')}</span> <CopyButton value={k.secretKey} label={t('engine.copySecret', names)} /></td>
                    </tr>
                  );
                })}
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
          <SandboxLimits />
          <SandboxVariants />
          <SandboxRequests />
          <SandboxSignHelper />
          <SandboxScenarios />
          <SandboxDeliveries />
          <DeveloperAccess />
          <SandboxRecordings />
        </>
      ) : null}
    </Screen>
  );
}
