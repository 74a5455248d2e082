/**
 * The approval policy (issue 25 item 1), inside the Approvals screen: per environment and
 * currency, amount tiers (from this amount up to the next tier) → how many approvals and from
 * which role. A workspace admin asks a change of one environment's and currency's tiers at a time;
 * it takes effect when a second admin, another person, approves it on the People screen (the
 * database refuses anyone else, and one admin alone, and audits both); everyone else reads it.
 * On a single desktop there is no policy: nobody else could approve.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure, ApprovalTier, ApproverRole } from '../../../shared/api';
import { ErrorNotice, Loading } from '../components/common';
import { currencyLabel, formatMoney } from '../format/money';
import { useApprovals } from '../stores';
import { draftOf, MAX_TIERS, validateTiers, type DraftTier, type TierError } from './approvalPolicyForm';

type Environment = 'sandbox' | 'live';
const APPROVAL_COUNTS = [0, 1, 2] as const;
const ROLES: ApproverRole[] = ['finance', 'admin'];

const draftsFor = (tiers: ApprovalTier[], environment: Environment, currency: string): DraftTier[] =>
  tiers.filter((tier) => tier.environment === environment && tier.currency === currency).map((tier) => draftOf(tier, currency));

function TierRow({ draft, index, error, currency, editable, onChange, onRemove }: {
  draft: DraftTier; index: number; error: TierError | null; currency: string; editable: boolean;
  onChange: (draft: DraftTier) => void; onRemove: () => void;
}) {
  const { t } = useTranslation('approvals');
  const n = index + 1;
  const errorId = `policy-tier-${index}-error`;
  return (
    <tr>
      <td>
        <input id={`policy-tier-${index}-from`} inputMode="decimal" value={draft.from} readOnly={!editable} aria-label={t('policy.fromLabel', { n, currency: currencyLabel(currency) })}
          aria-invalid={error ? true : undefined} aria-describedby={error ? errorId : undefined} onChange={(e) => onChange({ ...draft, from: e.target.value })} />
        {error ? <span id={errorId} className="field-error" role="alert">{t(`policy.error.${error}`, { currency: currencyLabel(currency) })}</span> : null}
      </td>
      <td>
        <select value={draft.approvals} disabled={!editable} aria-label={t('policy.approvalsLabel', { n })} onChange={(e) => onChange({ ...draft, approvals: Number(e.target.value) as 0 | 1 | 2 })}>
          {APPROVAL_COUNTS.map((count) => <option key={count} value={count}>{t(`policy.approvals.${count}`)}</option>)}
        </select>
      </td>
      <td>
        <select value={draft.approverRole} disabled={!editable || draft.approvals === 0} aria-label={t('policy.roleLabel', { n })} onChange={(e) => onChange({ ...draft, approverRole: e.target.value as ApproverRole })}>
          {ROLES.map((role) => <option key={role} value={role}>{t(`policy.role.${role}`)}</option>)}
        </select>
      </td>
      {editable ? (
        <td>
          <button type="button" className="secondary small" aria-label={t('policy.removeLabel', { n })} onClick={onRemove}>{t('policy.remove')}</button>
        </td>
      ) : null}
    </tr>
  );
}

function PolicyEditor({ tiers, isAdmin }: { tiers: ApprovalTier[]; isAdmin: boolean }) {
  const { t } = useTranslation('approvals');
  const askPolicy = useApprovals((s) => s.askPolicy);
  const [environment, setEnvironment] = useState<Environment>('sandbox');
  const [currency, setCurrency] = useState('XAF');
  const [drafts, setDrafts] = useState<DraftTier[]>(() => draftsFor(tiers, 'sandbox', 'XAF'));
  const [errors, setErrors] = useState<(TierError | null)[]>([]);
  const [answer, setAnswer] = useState<{ ok: true; id: number } | { ok: false; error: ApiFailure } | null>(null);
  const [busy, setBusy] = useState(false);
  const validCurrency = /^[A-Z]{3}$/.test(currency);
  const pick = (next: Environment, code: string) => {
    setEnvironment(next);
    setCurrency(code);
    setDrafts(/^[A-Z]{3}$/.test(code) ? draftsFor(tiers, next, code) : []);
    setErrors([]);
    setAnswer(null);
  };
  const change = (index: number, draft: DraftTier) => setDrafts((all) => all.map((d, i) => (i === index ? draft : d)));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setAnswer(null);
    const checked = validateTiers(drafts, currency);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors([]);
    setBusy(true);
    const result = await askPolicy(environment, currency, checked.tiers);
    setBusy(false);
    if (!result.ok) return setAnswer({ ok: false, error: result.error });
    // Nothing changed yet: the tiers stay as they are until a second admin approves the change.
    setAnswer({ ok: true, id: result.value.id });
  };
  return (
    <form aria-label={t('policy.formLabel')} onSubmit={(e) => void submit(e)} noValidate>
      <div className="policy-pick">
        <div className="field narrow">
          <label htmlFor="policy-environment">{t('field.environment')}</label>
          <select id="policy-environment" value={environment} onChange={(e) => pick(e.target.value as Environment, currency)}>
            <option value="sandbox">{t('environment.sandbox')}</option>
            <option value="live">{t('environment.live')}</option>
          </select>
        </div>
        <div className="field narrow">
          <label htmlFor="policy-currency">{t('policy.currency')}</label>
          <input id="policy-currency" value={currency} maxLength={3} aria-invalid={validCurrency ? undefined : true} aria-describedby={validCurrency ? undefined : 'policy-currency-error'}
            onChange={(e) => pick(environment, e.target.value.toUpperCase())} />
          {validCurrency ? null : <span id="policy-currency-error" className="field-error" role="alert">{t('policy.error.currency')}</span>}
        </div>
      </div>
      {drafts.length === 0 ? <p className="muted">{t('policy.none')}</p> : (
        <table className="policy-tiers">
          <caption className="small muted">{t('policy.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('policy.from', { currency: validCurrency ? currencyLabel(currency) : '' })}</th>
              <th scope="col">{t('policy.needs')}</th>
              <th scope="col">{t('policy.by')}</th>
              {isAdmin ? <th scope="col"><span className="sr-only">{t('policy.remove')}</span></th> : null}
            </tr>
          </thead>
          <tbody>
            {drafts.map((draft, index) => (
              <TierRow key={index} draft={draft} index={index} error={errors[index] ?? null} currency={currency} editable={isAdmin}
                onChange={(d) => change(index, d)} onRemove={() => { setDrafts((all) => all.filter((_, i) => i !== index)); setErrors([]); }} />
            ))}
          </tbody>
        </table>
      )}
      {isAdmin ? (
        <div className="actions left">
          <button type="button" className="secondary" disabled={!validCurrency || drafts.length >= MAX_TIERS}
            onClick={() => setDrafts((all) => [...all, { from: '', approvals: 1, approverRole: 'finance' }])}>{t('policy.add')}</button>
          <button type="submit" className="primary" disabled={busy || !validCurrency}>{t('policy.save', { environment: t(`environment.${environment}`), currency })}</button>
        </div>
      ) : null}
      {answer?.ok ? <p className="notice notice-info" role="status">{t('policy.saved', { id: answer.id, environment: t(`environment.${environment}`), currency })}</p> : null}
      {answer && !answer.ok ? <ErrorNotice failure={answer.error} /> : null}
    </form>
  );
}

/** Every tier of the workspace at a glance, in money as the app shows it. */
function PolicySummary({ tiers }: { tiers: ApprovalTier[] }) {
  const { t } = useTranslation('approvals');
  if (tiers.length === 0) return <p className="muted">{t('policy.empty')}</p>;
  return (
    <ul className="policy-summary small">
      {tiers.map((tier) => (
        <li key={`${tier.environment}-${tier.currency}-${tier.minAmount}`}>
          {t('policy.summary', {
            environment: t(`environment.${tier.environment}`),
            amount: formatMoney(tier.minAmount, tier.currency),
            needs: t(`policy.approvals.${tier.approvals}`),
            role: tier.approvals === 0 ? '' : t(`policy.role.${tier.approverRole}`),
          }).trim()}
        </li>
      ))}
    </ul>
  );
}

export function ApprovalPolicy() {
  const { t } = useTranslation('approvals');
  const available = useApprovals((s) => s.available);
  const roles = useApprovals((s) => s.roles);
  const loadPolicy = useApprovals((s) => s.policy);
  const [tiers, setTiers] = useState<ApprovalTier[] | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  useEffect(() => {
    if (!available) return;
    void loadPolicy().then((result) => (result.ok ? setTiers(result.value.tiers) : setFailure(result.error)));
  }, [available, loadPolicy]);
  const isAdmin = roles.includes('admin');
  return (
    <section className="card approval-policy" aria-labelledby="approval-policy-title">
      <h2 id="approval-policy-title">{t('policy.title')}</h2>
      <p className="muted small">{t('policy.intro')}</p>
      {!available ? <p className="notice notice-info">{t('policy.unavailable')}</p> : failure ? <ErrorNotice failure={failure} /> : tiers === null ? <Loading label={t('policy.loading')} /> : (
        <>
          {isAdmin ? <p className="small muted">{t('policy.twoAdmins')}</p> : <p className="notice notice-info">{t('policy.readOnly', { roles: roles.join(', ') || '—', count: Math.max(roles.length, 1) })}</p>}
          <PolicySummary tiers={tiers} />
          <PolicyEditor tiers={tiers} isAdmin={isAdmin} />
        </>
      )}
    </section>
  );
}
