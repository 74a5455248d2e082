/** Settings: profiles (add, edit, delete, switch) and their keys. */
import { useState } from 'react';
import { profileInputSchema, type ApiFailure, type Profile, type ProfileInput } from '../../../shared/api';
import { DEFAULT_HEADER_WORD, toFieldErrors, type FieldErrors } from '../../../shared/contract';
import { Dialog } from '../components/Dialog';
import { Empty, ErrorNotice, Field, Loading, describedBy } from '../components/common';
import { useProfiles } from '../stores';
import { LanguageSetting } from './LanguageSetting';
import { SecretKeys } from './SecretKeys';

const BLANK: ProfileInput = { name: '', baseUrl: 'https://', environment: 'sandbox', headerWord: DEFAULT_HEADER_WORD, paymentPublicKey: '', payoutPublicKey: '' };

function ProfileForm({ profile, onSaved, onCancel }: { profile: Profile | null; onSaved: (p: Profile) => void; onCancel: () => void }) {
  const save = useProfiles((s) => s.save);
  const [values, setValues] = useState<ProfileInput>(() =>
    profile ? { id: profile.id, name: profile.name, baseUrl: profile.baseUrl, environment: profile.environment, headerWord: profile.headerWord, paymentPublicKey: profile.paymentPublicKey, payoutPublicKey: profile.payoutPublicKey } : BLANK,
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof ProfileInput) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setValues((v) => ({ ...v, [key]: e.target.value }));
  const prefix = profile ? `p-${profile.id}` : 'p-new';
  const input = (key: keyof ProfileInput, label: string, hint?: string) => (
    <Field id={`${prefix}-${key}`} label={label} errors={errors[key]} hint={hint}>
      <input id={`${prefix}-${key}`} value={String(values[key] ?? '')} onChange={set(key)} autoComplete="off" {...describedBy(`${prefix}-${key}`, errors[key], Boolean(hint))} />
    </Field>
  );

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (busy) return;
    const parsed = profileInputSchema.safeParse(values);
    if (!parsed.success) {
      setErrors(toFieldErrors(parsed.error.issues));
      return;
    }
    setErrors({});
    setBusy(true);
    const result = await save(parsed.data);
    setBusy(false);
    if (result.ok) onSaved(result.value);
    else {
      setErrors(result.error.fields ?? {});
      setFailure(result.error);
    }
  }

  return (
    <form className="card form" onSubmit={(e) => void submit(e)} aria-label={profile ? `Edit profile ${profile.name}` : 'New profile'} noValidate>
      <h2>{profile ? `Profile ${profile.name}` : 'New profile'}</h2>
      {failure ? <ErrorNotice failure={failure} /> : null}
      {input('name', 'Name')}
      {input('baseUrl', 'Base URL', 'The service’s address, without /v1.')}
      <div className="grid-2">
        <Field id={`${prefix}-environment`} label="Environment" errors={errors.environment}>
          <select id={`${prefix}-environment`} value={values.environment} onChange={set('environment')}>
            <option value="sandbox">sandbox</option>
            <option value="live">live (real money)</option>
          </select>
        </Field>
        {input('headerWord', 'Header word', `Headers are named X-${values.headerWord || DEFAULT_HEADER_WORD}-Timestamp and so on.`)}
      </div>
      {input('paymentPublicKey', 'Payment public key')}
      {input('payoutPublicKey', 'Payout public key')}
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" className="primary" disabled={busy}>Save profile</button>
      </div>
    </form>
  );
}

export function SettingsScreen() {
  const status = useProfiles((s) => s.status);
  const error = useProfiles((s) => s.error);
  const profiles = useProfiles((s) => s.profiles);
  const activeId = useProfiles((s) => s.activeId);
  const activate = useProfiles((s) => s.activate);
  const remove = useProfiles((s) => s.remove);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [editing, setEditing] = useState<'new' | 'edit' | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<Profile | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const selected = profiles.find((p) => p.id === (selectedId ?? activeId)) ?? null;

  if (status === 'loading' || status === 'idle') return <section className="screen"><h1>Settings</h1><Loading label="Loading profiles" /></section>;
  if (status === 'error' && error) return <section className="screen"><h1>Settings</h1><ErrorNotice failure={error} /></section>;

  async function switchTo(profile: Profile) {
    setFailure(null);
    const result = await activate(profile.id);
    if (!result.ok) setFailure(result.error);
  }

  return (
    <section className="screen wide" aria-labelledby="settings-title">
      <header className="screen-head">
        <h1 id="settings-title">Settings</h1>
        <p className="muted">Profiles connect the console to a service, in one environment, with one pair of keys each.</p>
      </header>
      {failure ? <ErrorNotice failure={failure} /> : null}
      <LanguageSetting />
      <div className="settings">
        <div className="card profile-list">
          <h2>Profiles</h2>
          {profiles.length === 0 ? <Empty>No profiles yet.</Empty> : null}
          <ul>
            {profiles.map((profile) => (
              <li key={profile.id} className={profile.id === selected?.id ? 'selected' : ''}>
                <button type="button" className="row-button" aria-pressed={profile.id === selected?.id} onClick={() => { setSelectedId(profile.id); setEditing(null); }}>
                  <span>{profile.name}</span>
                  <span className={`env-pill env-${profile.environment}`}>{profile.environment}</span>
                  {profile.id === activeId ? <span className="active-tag">active</span> : null}
                </button>
              </li>
            ))}
          </ul>
          <button type="button" className="secondary" onClick={() => { setEditing('new'); setSelectedId(null); }}>Add profile</button>
        </div>
        <div className="profile-detail">
          {editing === 'new' ? (
            <ProfileForm profile={null} onSaved={(p) => { setEditing(null); setSelectedId(p.id); }} onCancel={() => setEditing(null)} />
          ) : selected && editing === 'edit' ? (
            <ProfileForm key={selected.id} profile={selected} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />
          ) : selected ? (
            <div className="card">
              <h2>{selected.name}</h2>
              <dl className="facts compact">
                <dt>Environment</dt>
                <dd><span className={`env-pill env-${selected.environment}`}>{selected.environment}</span></dd>
                <dt>Base URL</dt>
                <dd className="mono">{selected.baseUrl}</dd>
                <dt>Header word</dt>
                <dd className="mono">{selected.headerWord}</dd>
              </dl>
              <div className="actions left">
                {selected.id !== activeId ? (
                  <button type="button" className="primary" onClick={() => void switchTo(selected)}>Switch to {selected.name}</button>
                ) : (
                  <span className="active-tag">Active profile</span>
                )}
                {!selected.builtIn ? (
                  <>
                    <button type="button" className="secondary" onClick={() => setEditing('edit')}>Edit {selected.name}</button>
                    <button type="button" className="secondary danger-text" onClick={() => setConfirmDelete(selected)}>Delete {selected.name}</button>
                  </>
                ) : (
                  <span className="muted small">The built-in Local sandbox cannot be edited or deleted.</span>
                )}
              </div>
            </div>
          ) : null}
          {selected && editing === null ? <SecretKeys profile={selected} /> : null}
        </div>
      </div>
      {confirmDelete ? (
        <Dialog title={`Delete profile ${confirmDelete.name}?`} onClose={() => setConfirmDelete(null)}>
          <p>The profile and its secret keys in the keychain are removed. Its journal entries stay in History.</p>
          <div className="actions">
            <button type="button" className="secondary" onClick={() => setConfirmDelete(null)}>Cancel</button>
            <button type="button" className="danger" onClick={() => { const p = confirmDelete; setConfirmDelete(null); setSelectedId(null); void remove(p.id).then((r) => { if (!r.ok) setFailure(r.error); }); }}>
              Delete profile
            </button>
          </div>
        </Dialog>
      ) : null}
    </section>
  );
}
