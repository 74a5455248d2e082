/**
 * The Sandbox screen's scenarios per transaction (list, add, remove) and recordings (export the
 * inspector's records and the webhook deliveries as HAR or JSON lines). The engine validates a
 * scenario with the same schema as its control API; its field errors show beside the form.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FAILED_CODE_LIST, WEBHOOK_EFFECTS, normalisePhoneNumber, type FailedCode, type ScenarioInput, type WebhookEffect } from '../../../shared/contract';
import { Empty, ErrorNotice, statusLabel } from '../components/common';
import { downloadText } from '../components/download';
import { useControl } from '../components/useControl';
import { formatCount } from '../format/money';
import { describeFailedCode } from '../messages/errors';
import { translateFieldErrors } from '../messages/fields';
import { useSandbox } from '../stores';

type FinalStatus = ScenarioInput['status'];

/** The form control each of the engine's field names stands for (both keys are the one value box). */
const FIELD_CONTROLS: Record<string, string> = {
  phone_number: 'scn-value',
  external_id: 'scn-value',
  kind: 'scn-kind',
  status: 'scn-status',
  failed_code: 'scn-failed',
  processing_seconds: 'scn-processing',
  notify: 'scn-notify',
  webhooks: 'scn-webhooks',
  webhook_delay_seconds: 'scn-delay',
};
const LABEL_KEYS = {
  'scn-value': 'scenarios.value',
  'scn-kind': 'scenarios.kind',
  'scn-status': 'scenarios.status',
  'scn-failed': 'scenarios.failedCode',
  'scn-processing': 'scenarios.processingSeconds',
  'scn-notify': 'scenarios.notify',
  'scn-webhooks': 'scenarios.webhooks',
  'scn-delay': 'scenarios.delaySeconds',
} as const;

/** The form's text fields as typed, turned into the channel's input (numbers parsed, empties left out). */
function toInput(form: {
  field: 'phone_number' | 'external_id';
  value: string;
  kind: '' | 'payment' | 'payout';
  status: FinalStatus;
  failedCode: FailedCode;
  processingSeconds: string;
  notify: boolean;
  webhooks: WebhookEffect;
  delaySeconds: string;
}): ScenarioInput {
  return {
    // The one phone rule (shared/contract normalisePhoneNumber): spaces between digits are fine.
    [form.field]: form.field === 'phone_number' ? normalisePhoneNumber(form.value) : form.value.trim(),
    ...(form.kind === '' ? {} : { kind: form.kind }),
    status: form.status,
    ...(form.status === 'failed' ? { failed_code: form.failedCode } : {}),
    ...(form.processingSeconds.trim() === '' ? {} : { processing_seconds: Number(form.processingSeconds) }),
    notify: form.notify,
    webhooks: form.webhooks,
    ...(form.webhooks === 'late' ? { webhook_delay_seconds: Number(form.delaySeconds) } : {}),
  };
}

export function SandboxScenarios() {
  const { t } = useTranslation(['sandbox', 'common']);
  const { t: tc } = useTranslation('components');
  const scenarios = useSandbox((s) => s.scenarios);
  const addScenario = useSandbox((s) => s.addScenario);
  const removeScenario = useSandbox((s) => s.removeScenario);
  const control = useControl();
  const [field, setField] = useState<'phone_number' | 'external_id'>('phone_number');
  const [value, setValue] = useState('');
  const [kind, setKind] = useState<'' | 'payment' | 'payout'>('');
  const [status, setStatus] = useState<FinalStatus>('failed');
  const [failedCode, setFailedCode] = useState<FailedCode>('NOT_ENOUGH_FUNDS');
  const [processingSeconds, setProcessingSeconds] = useState('');
  const [notify, setNotify] = useState(true);
  const [webhooks, setWebhooks] = useState<WebhookEffect>('deliver');
  const [delaySeconds, setDelaySeconds] = useState('30');
  const [added, setAdded] = useState<string | null>(null);
  /** The value of the last attempt: what a refusal speaks of, even once the box is edited. */
  const [tried, setTried] = useState('');
  // The engine already has a scenario for this key (CONFLICT): said as such, on the value box.
  const conflict = control.failure?.code === 'CONFLICT';
  const fieldErrors: [string, string[]][] = conflict ? [['scn-value', [t('scenarios.conflictTitle', { value: tried })]]] : [];
  for (const [name, messages] of Object.entries(control.failure?.fields ?? {})) {
    const target = FIELD_CONTROLS[name] ?? name;
    const found = fieldErrors.find(([id]) => id === target);
    if (found) found[1].push(...translateFieldErrors(messages));
    else fieldErrors.push([target, translateFieldErrors(messages)]);
  }
  /** Marks a control invalid and ties it to its problem in the list under the form. */
  const marked = (id: string) => (fieldErrors.some(([name]) => name === id) ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {});
  const labelOf = (id: string) => (id in LABEL_KEYS ? t(LABEL_KEYS[id as keyof typeof LABEL_KEYS]) : id);

  async function submit(event: React.FormEvent): Promise<void> {
    event.preventDefault();
    setAdded(null);
    const input = toInput({ field, value, kind, status, failedCode, processingSeconds, notify, webhooks, delaySeconds });
    setTried(value.trim());
    let id = '';
    const ok = await control.run(async () => {
      const result = await addScenario(input);
      if (result.ok) id = result.value.id;
      return result;
    });
    if (ok) {
      setAdded(t('scenarios.added', { id }));
      setValue('');
    }
  }

  return (
    <div className="card">
      <h2>{t('scenarios.title')}</h2>
      <p className="muted small">{t('scenarios.intro')}</p>
      <form className="scenario-form" aria-label={t('scenarios.form')} onSubmit={(e) => void submit(e)}>
        <label>{t('scenarios.keyField')}
          <select value={field} onChange={(e) => setField(e.target.value as typeof field)}>
            <option value="phone_number">{t('scenarios.byPhone')}</option>
            <option value="external_id">{t('scenarios.byExternalId')}</option>
          </select>
        </label>
        <label>{t('scenarios.value')}
          <input id="scn-value" {...marked('scn-value')} value={value} onChange={(e) => setValue(e.target.value)} placeholder={field === 'phone_number' ? '+237677000101' : 'order-42'} required />
        </label>
        <label>{t('scenarios.kind')}
          <select id="scn-kind" {...marked('scn-kind')} value={kind} onChange={(e) => setKind(e.target.value as typeof kind)}>
            <option value="">{t('scenarios.kindBoth')}</option>
            <option value="payment">{t('scenarios.kindPayment')}</option>
            <option value="payout">{t('scenarios.kindPayout')}</option>
          </select>
        </label>
        <label>{t('scenarios.status')}
          <select id="scn-status" {...marked('scn-status')} value={status} onChange={(e) => setStatus(e.target.value as FinalStatus)}>
            {(['completed', 'failed', 'cancelled'] as const).map((s) => <option key={s} value={s}>{statusLabel(s)}</option>)}
          </select>
        </label>
        {status === 'failed' ? (
          <label>{t('scenarios.failedCode')}
            <select id="scn-failed" {...marked('scn-failed')} value={failedCode} onChange={(e) => setFailedCode(e.target.value as FailedCode)}>
              {FAILED_CODE_LIST.map((code) => <option key={code} value={code}>{code}</option>)}
            </select>
          </label>
        ) : null}
        <label>{t('scenarios.processingSeconds')}
          <input id="scn-processing" {...marked('scn-processing')} type="number" min={0} step="any" value={processingSeconds} onChange={(e) => setProcessingSeconds(e.target.value)} />
        </label>
        <label className="checkbox">
          <input id="scn-notify" {...marked('scn-notify')} type="checkbox" checked={notify} onChange={(e) => setNotify(e.target.checked)} /> {t('scenarios.notify')}
        </label>
        <label>{t('scenarios.webhooks')}
          <select id="scn-webhooks" {...marked('scn-webhooks')} value={webhooks} onChange={(e) => setWebhooks(e.target.value as WebhookEffect)}>
            {WEBHOOK_EFFECTS.map((effect) => <option key={effect} value={effect}>{t(`scenarios.webhookEffect.${effect}`)}</option>)}
          </select>
        </label>
        {webhooks === 'late' ? (
          <label>{t('scenarios.delaySeconds')}
            <input id="scn-delay" {...marked('scn-delay')} type="number" min={1} step="any" value={delaySeconds} onChange={(e) => setDelaySeconds(e.target.value)} />
          </label>
        ) : null}
        <button type="submit" className="primary" disabled={control.busy}>{t('scenarios.add')}</button>
      </form>
      <p role="status" className="muted small">{added ?? ''}</p>
      {conflict ? (
        <div className="notice notice-error" role="alert">
          <strong>{t('scenarios.conflictTitle', { value: tried })}</strong>
          <p>{t('scenarios.conflictNext')}</p>
          <p className="code">{tc('code', { code: 'CONFLICT' })}</p>
        </div>
      ) : control.failure ? (
        <ErrorNotice failure={control.failure} next={fieldErrors.length > 0 ? t('scenarios.fixMarked') : undefined} />
      ) : null}
      {fieldErrors.length > 0 && !conflict ? (
        <ul className="field-errors" aria-label={t('scenarios.fieldErrors')}>
          {fieldErrors.map(([id, messages]) => (
            <li key={id} id={`${id}-error`}>{tc('errorSummaryItem', { label: labelOf(id), problem: messages.join('; ') })}</li>
          ))}
        </ul>
      ) : null}
      {conflict ? <span hidden id="scn-value-error">{t('scenarios.conflictTitle', { value: tried })}</span> : null}
      {scenarios.length === 0 ? (
        <Empty>{t('scenarios.empty')}</Empty>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{t('scenarios.key')}</th><th scope="col">{t('scenarios.outcome')}</th><th scope="col">{t('scenarios.timing')}</th>
              <th scope="col">{t('scenarios.reports')}</th><th scope="col">{t('scenarios.webhooks')}</th><th scope="col">{t('scenarios.uses')}</th>
              <th scope="col"><span className="sr-only">{t('scenarios.remove')}</span></th>
            </tr>
          </thead>
          <tbody>
            {scenarios.map((s) => (
              <tr key={s.id}>
                <td><span className="mono">{s.match.value}</span><div className="muted small">{s.kind === null ? t('scenarios.kindBoth') : s.kind === 'payment' ? t('scenarios.kindPayment') : t('scenarios.kindPayout')}</div></td>
                <td><span className={`badge badge-${s.status}`}>{statusLabel(s.status)}</span>{s.failed_code ? <div className="muted small">{describeFailedCode(s.failed_code)}</div> : null}</td>
                <td>{s.processing_seconds === null ? t('scenarios.settleDelay') : t('scenarios.seconds', { seconds: formatCount(s.processing_seconds) })}</td>
                <td>{s.notify ? t('scenarios.yes') : t('scenarios.untilVerify')}</td>
                <td>{t(`scenarios.webhookEffect.${s.webhooks}`)}{s.webhook_delay_seconds === null ? '' : ` (${t('scenarios.seconds', { seconds: formatCount(s.webhook_delay_seconds) })})`}</td>
                <td>{formatCount(s.applied)}{s.uses_left === null ? '' : ` / ${formatCount(s.applied + s.uses_left)}`}</td>
                <td>
                  <button type="button" className="secondary small" onClick={() => void control.run(() => removeScenario(s.id))} aria-label={t('scenarios.removeLabel', { key: s.match.value })}>
                    {t('scenarios.remove')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function SandboxRecordings() {
  const { t } = useTranslation('sandbox');
  const recording = useSandbox((s) => s.recording);
  const control = useControl();
  const [saved, setSaved] = useState<string | null>(null);
  async function save(format: 'har' | 'jsonl'): Promise<void> {
    setSaved(null);
    await control.run(async () => {
      const result = await recording(format);
      if (result.ok) {
        const file = result.value;
        downloadText(file.filename, file.text, file.contentType);
        setSaved(t('recordings.saved', { file: file.filename, requests: formatCount(file.requests), deliveries: formatCount(file.deliveries) }));
      }
      return result;
    });
  }
  return (
    <div className="card">
      <h2>{t('recordings.title')}</h2>
      <p className="muted small">{t('recordings.intro')}</p>
      <div className="inline-form">
        <button type="button" className="secondary" disabled={control.busy} onClick={() => void save('har')}>{t('recordings.har')}</button>
        <button type="button" className="secondary" disabled={control.busy} onClick={() => void save('jsonl')}>{t('recordings.jsonl')}</button>
      </div>
      <p role="status" className="muted small">{saved ?? ''}</p>
      {control.failure ? <ErrorNotice failure={control.failure} /> : null}
    </div>
  );
}
