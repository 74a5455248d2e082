/**
 * The engine's rate limit and webhook chaos, as its control API offers them (`PUT /rate-limit`,
 * `…/webhook-chaos`): to try a client against 429s and against deliveries that are dropped,
 * late, duplicated or out of order, without writing a control API call.
 */
import '../sandbox-limits.css';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SandboxWebhookChaos } from '../../../shared/api';
import { ErrorNotice } from '../components/common';
import { useControl } from '../components/useControl';
import { formatCount } from '../format/money';
import { useSandbox } from '../stores';

type ShareField = 'drop' | 'late' | 'duplicate' | 'outOfOrder';
const SHARE_FIELDS: ShareField[] = ['drop', 'late', 'duplicate', 'outOfOrder'];
const ENGINE_NAME: Record<ShareField, 'drop' | 'late' | 'duplicate' | 'out_of_order'> = { drop: 'drop', late: 'late', duplicate: 'duplicate', outOfOrder: 'out_of_order' };

/** A behaviour's share as a percent for the form ('' when off or given as a count). */
function percentOf(chaos: SandboxWebhookChaos | null | undefined, field: ShareField): string {
  const rate = chaos?.[ENGINE_NAME[field]]?.rate;
  return rate === undefined ? '' : String(Math.round(rate * 1000) / 10);
}

function RateLimit() {
  const { t } = useTranslation('sandbox');
  const engine = useSandbox((s) => s.engine);
  const setRateLimit = useSandbox((s) => s.setRateLimit);
  const control = useControl();
  const current = engine?.rateLimitPerKeyPerMinute ?? 0;
  const [text, setText] = useState(String(current));
  const [error, setError] = useState<string | null>(null);
  function submit(event: React.FormEvent) {
    event.preventDefault();
    const value = Number(text.trim());
    if (text.trim() === '' || !Number.isInteger(value) || value < 0 || value > 1_000_000) return setError(t('limits.rateError'));
    setError(null);
    void control.run(() => setRateLimit(value));
  }
  return (
    <form className="inline-form rate-form" aria-label={t('limits.rateForm')} onSubmit={submit} noValidate>
      <div className="limit-field">
        <label htmlFor="sandbox-rate-limit">{t('limits.rate')}</label>
        <input id="sandbox-rate-limit" inputMode="numeric" value={text} onChange={(e) => setText(e.target.value)} aria-invalid={error ? true : undefined} aria-describedby={error ? 'sandbox-rate-limit-error' : 'sandbox-rate-limit-now'} />
      </div>
      <button type="submit" className="secondary" disabled={control.busy}>{t('limits.rateSet')}</button>
      <span id="sandbox-rate-limit-now" className="muted small" role="status">
        {current === 0 ? t('limits.rateOff') : t('limits.rateNow', { n: formatCount(current) })}
      </span>
      {error ? <p id="sandbox-rate-limit-error" className="field-error" role="alert">{error}</p> : null}
      {control.failure ? <ErrorNotice failure={control.failure} /> : null}
    </form>
  );
}

function Chaos() {
  const { t } = useTranslation('sandbox');
  const chaos = useSandbox((s) => s.engine?.chaos ?? null);
  const setChaos = useSandbox((s) => s.setChaos);
  const clearChaos = useSandbox((s) => s.clearChaos);
  const control = useControl();
  const [shares, setShares] = useState<Record<ShareField, string>>(() => ({ drop: percentOf(chaos, 'drop'), late: percentOf(chaos, 'late'), duplicate: percentOf(chaos, 'duplicate'), outOfOrder: percentOf(chaos, 'outOfOrder') }));
  const [lateSeconds, setLateSeconds] = useState(String(chaos?.late?.seconds ?? 30));
  const [errors, setErrors] = useState<Partial<Record<ShareField | 'lateSeconds', string>>>({});
  function submit(event: React.FormEvent) {
    event.preventDefault();
    const found: typeof errors = {};
    const parsed = {} as Record<ShareField, number>;
    for (const field of SHARE_FIELDS) {
      const text = shares[field].trim();
      const value = text === '' ? 0 : Number(text.replace(',', '.'));
      if (!Number.isFinite(value) || value < 0 || value > 100) found[field] = t('limits.shareError');
      parsed[field] = value / 100;
    }
    const seconds = Number(lateSeconds.trim());
    if (parsed.late > 0 && (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400)) found.lateSeconds = t('limits.secondsError');
    if (Object.keys(found).length === 0 && SHARE_FIELDS.every((field) => parsed[field] === 0)) found.drop = t('limits.noneError');
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    void control.run(() => setChaos({ ...parsed, lateSeconds: parsed.late > 0 ? seconds : 30 }));
  }
  const describe = (field: ShareField | 'lateSeconds') => (errors[field] ? { 'aria-invalid': true, 'aria-describedby': `chaos-${field}-error` } : {});
  const fieldError = (field: ShareField | 'lateSeconds') => (errors[field] ? <span id={`chaos-${field}-error`} className="field-error" role="alert">{errors[field]}</span> : null);
  return (
    <form aria-label={t('limits.chaosForm')} onSubmit={submit} noValidate>
      <fieldset className="chaos-fields">
        <legend>{t('limits.chaos')}</legend>
        <p className="muted small" role="status">
          {chaos
            ? t('limits.chaosOn', {
                behaviours: SHARE_FIELDS.filter((field) => percentOf(chaos, field) !== '')
                  .map((field) => t(`limits.chaosNow.${field}`, { percent: percentOf(chaos, field), seconds: formatCount(chaos.late?.seconds ?? 0) }))
                  .join(', '),
                seed: chaos.seed,
              })
            : t('limits.chaosOff')}
        </p>
        {SHARE_FIELDS.map((field) => (
          <div key={field} className="field narrow">
            <label htmlFor={`chaos-${field}`}>{t(`limits.share.${field}`)}</label>
            <input id={`chaos-${field}`} inputMode="decimal" value={shares[field]} placeholder="0" onChange={(e) => setShares((s) => ({ ...s, [field]: e.target.value }))} {...describe(field)} />
            {fieldError(field)}
          </div>
        ))}
        <div className="field narrow">
          <label htmlFor="chaos-lateSeconds">{t('limits.lateSeconds')}</label>
          <input id="chaos-lateSeconds" inputMode="numeric" value={lateSeconds} onChange={(e) => setLateSeconds(e.target.value)} {...describe('lateSeconds')} />
          {fieldError('lateSeconds')}
        </div>
      </fieldset>
      <div className="actions left">
        <button type="submit" className="secondary" disabled={control.busy}>{t('limits.chaosSet')}</button>
        <button type="button" className="secondary" disabled={control.busy || !chaos} onClick={() => void control.run(() => clearChaos())}>{t('limits.chaosClear')}</button>
      </div>
      {control.failure ? <ErrorNotice failure={control.failure} /> : null}
    </form>
  );
}

export function SandboxLimits() {
  const { t } = useTranslation('sandbox');
  return (
    <div className="card sandbox-limits">
      <h2>{t('limits.title')}</h2>
      <p className="muted small">{t('limits.intro')}</p>
      <RateLimit />
      <Chaos />
    </div>
  );
}
