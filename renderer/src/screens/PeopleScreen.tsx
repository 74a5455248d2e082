/**
 * People (issue 36 item 3): the workspace's logins with their display name, role(s) and status; an
 * admin asks to add a person, reset a password or disable a login, and approves or rejects what
 * another admin asked. Nothing here changes at once: the workspace applies a change when a second
 * admin, another person, approves it (migrations 45-46), and a workspace with one admin says what
 * that means. Passwords go to main, which sends the workspace their SCRAM verifier only.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { addPersonSchema, PERSON_ROLES, passwordSchema, type AdminChange, type PersonLogin, type PersonRole } from '../../../shared/api';
import { Screen } from '../components/Screen';
import { ErrorNotice, Loading } from '../components/common';
import { formatMoney } from '../format/money';
import { usePeople } from '../stores';

type AddField = 'login' | 'displayName' | 'password' | 'role';

function AddPerson() {
  const { t } = useTranslation('people');
  const add = usePeople((s) => s.add);
  const busy = usePeople((s) => s.busy === 'add');
  const [form, setForm] = useState({ login: '', role: 'finance' as PersonRole, displayName: '', password: '' });
  const [errors, setErrors] = useState<Partial<Record<AddField, true>>>({});
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = addPersonSchema.safeParse(form);
    if (!checked.success) {
      return setErrors(Object.fromEntries(checked.error.issues.map((issue) => [issue.path[0], true])) as Partial<Record<AddField, true>>);
    }
    setErrors({});
    const result = await add(checked.data);
    if (result.ok) setForm({ login: '', role: 'finance', displayName: '', password: '' });
    else if (result.error.fields) setErrors(Object.fromEntries(Object.keys(result.error.fields).map((field) => [field, true])) as Partial<Record<AddField, true>>);
  };
  const field = (name: AddField) => ({
    id: `person-${name}`,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `person-${name}-error` : name === 'login' || name === 'password' ? `person-${name}-hint` : undefined,
  });
  const fieldError = (name: AddField) =>
    errors[name] ? <span id={`person-${name}-error`} className="field-error" role="alert">{t(`add.error.${name}`)}</span> : null;
  return (
    <form className="card" aria-labelledby="person-add-title" onSubmit={(e) => void submit(e)} noValidate>
      <h2 id="person-add-title">{t('add.title')}</h2>
      <div className="person-fields">
        <div className="field">
          <label htmlFor="person-login">{t('add.login')}</label>
          <input {...field('login')} value={form.login} autoComplete="off" spellCheck={false} onChange={(e) => setForm({ ...form, login: e.target.value })} />
          {errors.login ? fieldError('login') : <span id="person-login-hint" className="small muted">{t('add.loginHint')}</span>}
        </div>
        <div className="field">
          <label htmlFor="person-displayName">{t('add.name')}</label>
          <input {...field('displayName')} value={form.displayName} maxLength={120} onChange={(e) => setForm({ ...form, displayName: e.target.value })} />
          {fieldError('displayName')}
        </div>
        <div className="field narrow">
          <label htmlFor="person-role">{t('add.role')}</label>
          <select {...field('role')} value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as PersonRole })}>
            {PERSON_ROLES.map((role) => <option key={role} value={role}>{t(`role.${role}`)}</option>)}
          </select>
        </div>
        <div className="field">
          <label htmlFor="person-password">{t('add.password')}</label>
          <input {...field('password')} type="password" autoComplete="new-password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} />
          {errors.password ? fieldError('password') : <span id="person-password-hint" className="small muted">{t('add.passwordHint')}</span>}
        </div>
      </div>
      <div className="actions left">
        <button type="submit" className="primary" disabled={busy}>{t('add.submit')}</button>
      </div>
    </form>
  );
}

function ResetPassword({ login, onDone }: { login: string; onDone: () => void }) {
  const { t } = useTranslation('people');
  const resetPassword = usePeople((s) => s.resetPassword);
  const [password, setPassword] = useState('');
  const [invalid, setInvalid] = useState(false);
  const id = `reset-${login}`;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!passwordSchema.safeParse(password).success) return setInvalid(true);
    setInvalid(false);
    if ((await resetPassword(login, password)).ok) onDone();
  };
  return (
    <form className="inline-form" onSubmit={(e) => void submit(e)} noValidate>
      <label htmlFor={id} className="sr-only">{t('reset.label', { login })}</label>
      <input id={id} type="password" autoComplete="new-password" value={password} aria-invalid={invalid || undefined} aria-describedby={invalid ? `${id}-error` : undefined}
        onChange={(e) => setPassword(e.target.value)} />
      <button type="submit" className="secondary small">{t('reset.submit')}</button>
      <button type="button" className="secondary small" onClick={onDone}>{t('reset.cancel')}</button>
      {invalid ? <span id={`${id}-error`} className="field-error" role="alert">{t('add.error.password')}</span> : null}
    </form>
  );
}

function PersonRow({ person, me, sharing }: { person: PersonLogin; me: string; sharing: string[] }) {
  const { t } = useTranslation('people');
  const disable = usePeople((s) => s.disable);
  const [resetting, setResetting] = useState(false);
  return (
    <tr>
      <th scope="row" className="people-login"><code>{person.login}</code> {person.login === me ? <span className="muted small">{t('list.you')}</span> : null}</th>
      <td>
        {person.displayName}
        {sharing.length > 0 ? <div className="small muted">{t('list.sharedPerson', { logins: sharing.join(', ') })}</div> : null}
      </td>
      <td>{person.roles.length === 0 ? t('list.noRole') : person.roles.map((role) => t(`role.${role}`)).join(', ')}</td>
      <td>{person.disabled ? <span className="tag tag-muted">{t('list.disabled')}</span> : t('list.active')}</td>
      <td>
        {person.disabled || person.login === me ? null : resetting ? (
          <ResetPassword login={person.login} onDone={() => setResetting(false)} />
        ) : (
          <div className="row-actions">
            <button type="button" className="secondary small" onClick={() => setResetting(true)}>{t('reset.open')}</button>
            <button type="button" className="secondary small" aria-label={t('disable.label', { login: person.login })} onClick={() => void disable(person.login)}>{t('disable.button')}</button>
          </div>
        )}
      </td>
    </tr>
  );
}

/** One change in words: what it does, never a password. */
function useChangeWords() {
  const { t } = useTranslation('people');
  const { t: ta } = useTranslation('approvals');
  return (change: AdminChange): string => {
    const c = change.change as Record<string, unknown>;
    const role = (name: unknown) => t(`role.${String(name).replace(/^paydesk_/, '') as PersonRole}`);
    switch (change.kind) {
      case 'policy': {
        const tiers = (c.tiers as { minAmount: number; approvals: 0 | 1 | 2; approverRole: string }[]) ?? [];
        const words = tiers.length === 0 ? t('changes.noTiers') : tiers.map((tier) => t('changes.tier', {
          amount: formatMoney(tier.minAmount, String(c.currency)), approvals: ta(`policy.approvals.${tier.approvals}`), role: role(tier.approverRole),
        })).join('; ');
        return t('changes.kind.policy', { environment: ta(`environment.${String(c.environment) as 'sandbox' | 'live'}`), currency: String(c.currency), tiers: words });
      }
      case 'role':
        return t(c.member ? 'changes.kind.role' : 'changes.revokeRole', { role: role(c.role), login: String(c.login) });
      case 'add_person':
        return t('changes.kind.add_person', { login: String(c.login), displayName: String(c.displayName), role: role(c.role) });
      case 'reset_password':
        return t('changes.kind.reset_password', { login: String(c.login) });
      case 'disable_login':
        return t('changes.kind.disable_login', { login: String(c.login) });
      default: {
        const never: never = change.kind;
        return String(never);
      }
    }
  };
}

function Changes({ changes }: { changes: AdminChange[] }) {
  const { t } = useTranslation('people');
  const approve = usePeople((s) => s.approve);
  const reject = usePeople((s) => s.reject);
  const busy = usePeople((s) => s.busy);
  const words = useChangeWords();
  const waiting = changes.filter((c) => c.state === 'awaiting');
  const decided = changes.filter((c) => c.state !== 'awaiting');
  return (
    <section className="card" aria-labelledby="people-changes-title">
      <h2 id="people-changes-title">{t('changes.title')}</h2>
      {waiting.length === 0 ? <p className="muted">{t('changes.none')}</p> : (
        <ul className="change-list">
          {waiting.map((change) => (
            <li key={change.id}>
              <p><strong>#{change.id}</strong> {words(change)} <span className="muted small">{t('changes.askedBy', { login: change.requestedBy })}</span></p>
              <div className="row-actions">
                {change.mine ? (
                  <>
                    <span className="small muted">{t('changes.yours')}</span>{' '}
                    <button type="button" className="secondary small" disabled={busy !== null} aria-label={t('changes.withdrawLabel', { id: change.id })} onClick={() => void reject(change.id)}>{t('changes.withdraw')}</button>
                  </>
                ) : (
                  <>
                    <button type="button" className="primary small" disabled={busy !== null} aria-label={t('changes.approveLabel', { id: change.id })} onClick={() => void approve(change.id)}>{t('changes.approve')}</button>
                    <button type="button" className="secondary small" disabled={busy !== null} aria-label={t('changes.rejectLabel', { id: change.id })} onClick={() => void reject(change.id)}>{t('changes.reject')}</button>
                  </>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {decided.length > 0 ? (
        <>
          <h3>{t('changes.recent')}</h3>
          <ul className="change-list small">
            {decided.map((change) => (
              <li key={change.id}>#{change.id} {words(change)} — {t(`changes.state.${change.state}`)}{change.decidedBy ? ` (${change.decidedBy})` : ''}</li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function LastAnswer() {
  const { t } = useTranslation('people');
  const last = usePeople((s) => s.last);
  if (!last) return null;
  if (!last.ok) return <ErrorNotice failure={last.error} />;
  const { id, state } = last.change;
  const sentence = state === 'awaiting' ? t('asked', { id }) : state === 'applied' ? t('applied', { id }) : t('rejected', { id, state: t(`changes.state.${state}`).toLowerCase() });
  return <p className="notice notice-info" role="status">{sentence}</p>;
}

export function PeopleScreen() {
  const { t } = useTranslation('people');
  const state = usePeople((s) => s);
  const load = usePeople((s) => s.load);
  // Read when the screen opens, and again after each ask or decision (the store's own load).
  useEffect(() => {
    void load();
  }, [load]);
  const view = state.view;
  const personLogins = new Map<number, string[]>();
  for (const person of view?.people ?? []) if (person.personId !== null) personLogins.set(person.personId, [...(personLogins.get(person.personId) ?? []), person.login]);
  return (
    <Screen id="people" title={t('title')} intro={t('intro')} width="wide">
      {state.status === 'error' && state.failure ? (
        state.failure.code === 'PEOPLE_UNAVAILABLE' ? <p className="notice notice-info">{t('unavailable')}</p> : <ErrorNotice failure={state.failure} />
      ) : !view ? (
        <Loading label={t('loading')} />
      ) : (
        <>
          {view.adminPeople < 2 ? (
            <div className="notice notice-warning" role="note" aria-labelledby="people-one-admin">
              <strong id="people-one-admin">{t('oneAdmin.title')}</strong>
              <p>{t('oneAdmin.text')}</p>
            </div>
          ) : <p className="small muted">{t('admins', { count: view.adminPeople })}</p>}
          <LastAnswer />
          <Changes changes={view.changes} />
          <section className="card" aria-labelledby="people-list-title">
            <h2 id="people-list-title">{t('list.caption')}</h2>
            <table className="table people-table">
              <thead>
                <tr>
                  <th scope="col">{t('list.login')}</th>
                  <th scope="col">{t('list.name')}</th>
                  <th scope="col">{t('list.roles')}</th>
                  <th scope="col">{t('list.status')}</th>
                  <th scope="col">{t('list.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {view.people.map((person) => (
                  <PersonRow key={person.login} person={person} me={view.login}
                    sharing={person.personId === null ? [] : (personLogins.get(person.personId) ?? []).filter((login) => login !== person.login)} />
                ))}
              </tbody>
            </table>
          </section>
          <AddPerson />
        </>
      )}
    </Screen>
  );
}
