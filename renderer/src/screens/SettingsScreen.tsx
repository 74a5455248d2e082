/** Settings: profiles (add, edit, delete, switch) and their keys. */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { profileInputSchema, type ApiFailure, type Profile, type ProfileInput } from '../../../shared/api';
import { DEFAULT_HEADER_WORD, toFieldErrors, type FieldErrors } from '../../../shared/contract';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Empty, ErrorNotice, Field, Loading, describedBy, profileName } from '../components/common';
import { useProfiles, useUi } from '../stores';
import { refusesProfile } from '../stores/profiles';
import { LanguageSetting } from './LanguageSetting';
import { ThemeSetting } from './ThemeSetting';
import { ConnectionFields } from './ConnectionFields';
import { SecretKeys } from './SecretKeys';
import { WorkspaceSetting } from './WorkspaceSetting';
import { ScopeNote, ScopeTag, TeamKeys, TeamProfileForm, useTeamAdmin } from './TeamProfiles';
import { t as tg } from '../i18n';
import { Screen } from '../components/Screen';

const BLANK: ProfileInput = { name: '', baseUrl: 'https://', environment: 'sandbox', headerWord: DEFAULT_HEADER_WORD, paymentPublicKey: '', payoutPublicKey: '' };

/** Said on the profile itself: this host will not use a live profile. */
function LiveRefusedNote({ environment }: { environment: Profile['environment'] }) {
  const { t } = useTranslation('settings');
  const refused = useProfiles((s) => refusesProfile(s, { environment }));
  if (!refused) return null;
  return (
    <div className="notice notice-live" role="note">
      <strong>{t('live.refused')}</strong>
      <p>{t('live.refusedNext')}</p>
    </div>
  );
}

function ProfileForm({ profile, onSaved, onCancel }: { profile: Profile | null; onSaved: (p: Profile) => void; onCancel: () => void }) {
  const { t } = useTranslation('settings');
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
    <form className="card form" onSubmit={(e) => void submit(e)} aria-label={profile ? t('editLabel', { name: profileName(profile) }) : t('newProfile')} noValidate>
      <h2>{profile ? t('profileTitle', { name: profileName(profile) }) : t('newProfile')}</h2>
      {failure ? <ErrorNotice failure={failure} /> : null}
      <ConnectionFields prefix={prefix} values={values} errors={errors} set={set} />
      <LiveRefusedNote environment={values.environment} />
      {input('paymentPublicKey', t('paymentKey'))}
      {input('payoutPublicKey', t('payoutKey'))}
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>{t('cancel')}</button>
        <button type="submit" className="primary" disabled={busy}>{t('save')}</button>
      </div>
    </form>
  );
}

export function SettingsScreen() {
  const { t } = useTranslation('settings');
  const allowLive = useProfiles((s) => s.info?.allowLive ?? true);
  const status = useProfiles((s) => s.status);
  const error = useProfiles((s) => s.error);
  const profiles = useProfiles((s) => s.profiles);
  const activeId = useProfiles((s) => s.activeId);
  const activate = useProfiles((s) => s.activate);
  const remove = useProfiles((s) => s.remove);
  // "Add this desktop's keys" (a Verify or a send without them) opens Settings on that profile.
  const askedProfile = useUi((s) => (s.screen === 'settings' ? s.params.profile : undefined)) ?? null;
  const [selectedId, setSelectedId] = useState<string | null>(askedProfile);
  const [editing, setEditing] = useState<'new' | 'edit' | 'newTeam' | 'editTeam' | null>(null);
  useEffect(() => {
    if (askedProfile === null) return;
    setSelectedId(askedProfile);
    setEditing(null);
  }, [askedProfile]);
  const [confirmDelete, setConfirmDelete] = useState<Profile | null>(null);
  const [confirmRemoveTeam, setConfirmRemoveTeam] = useState<Profile | null>(null);
  const teamAdmin = useTeamAdmin();
  const team = useProfiles((s) => s.team);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const selected = profiles.find((p) => p.id === (selectedId ?? activeId)) ?? null;

  if (status === 'loading' || status === 'idle') return <section className="screen"><h1>{t('title')}</h1><Loading label={t('loading')} /></section>;
  if (status === 'error' && error) return <section className="screen"><h1>{t('title')}</h1><ErrorNotice failure={error} /></section>;

  async function switchTo(profile: Profile) {
    setFailure(null);
    const result = await activate(profile.id);
    if (!result.ok) setFailure(result.error);
  }

  return (
    <Screen id="settings" title={t('title')} intro={t('intro')} width="wide">
      {failure ? <ErrorNotice failure={failure} /> : null}
      <div className="preferences">
        <LanguageSetting />
        <ThemeSetting />
      </div>
      <WorkspaceSetting />
      <div className="settings">
        <div className="card profile-list">
          <h2>{t('profiles')}</h2>
          {profiles.length === 0 ? <Empty>{t('none')}</Empty> : null}
          <ul>
            {profiles.map((profile) => (
              <li key={profile.id} className={profile.id === selected?.id ? 'selected' : ''}>
                <button type="button" className="row-button" aria-pressed={profile.id === selected?.id} onClick={() => { setSelectedId(profile.id); setEditing(null); }}>
                  <span>{profileName(profile)}</span>
                  <ScopeTag profile={profile} />
                  <span className={`env-pill env-${profile.environment}`}>{tg(`common:environment.${profile.environment}`)}</span>
                  {profile.environment === 'live' && !allowLive ? <span className="refused-tag">{t('refusedTag')}</span> : null}
                  {profile.id === activeId ? <span className="active-tag">{t('active')}</span> : null}
                </button>
              </li>
            ))}
          </ul>
          <div className="actions left">
            <button type="button" className="secondary" onClick={() => { setEditing('new'); setSelectedId(null); }}>{t('add')}</button>
            {teamAdmin ? <button type="button" className="secondary" onClick={() => { setEditing('newTeam'); setSelectedId(null); }}>{t('team.add')}</button> : null}
          </div>
        </div>
        <div className="profile-detail">
          {editing === 'newTeam' ? (
            <TeamProfileForm profile={null} onSaved={(id) => { setEditing(null); setSelectedId(id); }} onCancel={() => setEditing(null)} />
          ) : selected && editing === 'editTeam' ? (
            <TeamProfileForm key={selected.id} profile={selected} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />
          ) : editing === 'new' ? (
            <ProfileForm profile={null} onSaved={(p) => { setEditing(null); setSelectedId(p.id); }} onCancel={() => setEditing(null)} />
          ) : selected && editing === 'edit' ? (
            <ProfileForm key={selected.id} profile={selected} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />
          ) : selected ? (
            <div className="card">
              <h2>{profileName(selected)}</h2>
              <LiveRefusedNote environment={selected.environment} />
              <ScopeNote profile={selected} onEdit={() => setEditing('editTeam')} onRemove={() => setConfirmRemoveTeam(selected)} />
              <dl className="facts compact">
                <dt>{t('environment')}</dt>
                <dd><span className={`env-pill env-${selected.environment}`}>{tg(`common:environment.${selected.environment}`)}</span></dd>
                <dt>{t('baseUrlFact')}</dt>
                <dd className="mono">{selected.baseUrl}</dd>
                <dt>{t('headerWordFact')}</dt>
                <dd className="mono">{selected.headerWord}</dd>
              </dl>
              <div className="actions left">
                {selected.id !== activeId ? (
                  <button type="button" className="primary" onClick={() => void switchTo(selected)}>{t('switchTo', { name: profileName(selected) })}</button>
                ) : (
                  <span className="active-tag">{t('activeProfile')}</span>
                )}
                {selected.scope === 'team' ? null : !selected.builtIn ? (
                  <>
                    <button type="button" className="secondary" onClick={() => setEditing('edit')}>{t('edit', { name: profileName(selected) })}</button>
                    <button type="button" className="secondary danger-text" onClick={() => setConfirmDelete(selected)}>{t('delete', { name: profileName(selected) })}</button>
                  </>
                ) : (
                  <span className="muted small">{t('builtIn')}</span>
                )}
              </div>
            </div>
          ) : null}
          {selected && editing === null && selected.scope === 'team' && !selected.keysWithSender ? <TeamKeys key={selected.id} profile={selected} /> : null}
          {selected && editing === null ? <SecretKeys profile={selected} /> : null}
        </div>
      </div>
      {confirmRemoveTeam ? (
        <ConfirmDialog
          title={t('team.removeTitle', { name: confirmRemoveTeam.name })}
          keepLabel={t('cancel')}
          actLabel={t('team.removeConfirm')}
          onClose={() => setConfirmRemoveTeam(null)}
          onConfirm={() => {
            setSelectedId(null);
            void team('teamProfiles:delete', { id: confirmRemoveTeam.id }).then((r) => {
              if (!r.ok) setFailure(r.error);
            });
          }}
        >
          {t('team.removeBody')}
        </ConfirmDialog>
      ) : null}
      {confirmDelete ? (
        <ConfirmDialog
          title={t('deleteTitle', { name: profileName(confirmDelete) })}
          keepLabel={t('cancel')}
          actLabel={t('deleteConfirm')}
          onClose={() => setConfirmDelete(null)}
          onConfirm={() => {
            setSelectedId(null);
            void remove(confirmDelete.id).then((r) => {
              if (!r.ok) setFailure(r.error);
            });
          }}
        >
          {t('deleteBody')}
        </ConfirmDialog>
      ) : null}
    </Screen>
  );
}
