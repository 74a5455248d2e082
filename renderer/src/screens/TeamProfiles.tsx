/**
 * Team profiles in Settings (docs/decisions/team-profiles.md): on a team workspace a profile is
 * the team's (its definition in the workspace, an admin changes it) or this desktop's only; each
 * desktop gives its own public keys for a team profile here and its secret keys in SecretKeys.
 * On this desktop's own journal none of this shows (profiles carry no `scope` there).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { teamProfileInputSchema, type ApiFailure, type Profile, type TeamProfileInput } from '../../../shared/api';
import { DEFAULT_HEADER_WORD, toFieldErrors, type FieldErrors } from '../../../shared/contract';
import { ErrorNotice, Field, describedBy, profileName } from '../components/common';
import { ConnectionFields } from './ConnectionFields';
import { useProfiles, useWorkspace } from '../stores';

/** Whether this login may change the team's profiles (the workspace refuses anyone else anyway). */
export function useTeamAdmin(): boolean {
  return useWorkspace((s) => s.status?.store === 'workspace' && s.status.state !== 'fault' && s.status.who.roles.includes('admin'));
}

export function ScopeTag({ profile }: { profile: Pick<Profile, 'scope'> }) {
  const { t } = useTranslation('settings');
  if (!profile.scope) return null;
  return <span className={`scope-tag scope-${profile.scope}`}>{profile.scope === 'team' ? t('team.teamTag') : t('team.desktopTag')}</span>;
}

const BLANK: TeamProfileInput = { name: '', baseUrl: 'https://', environment: 'sandbox', headerWord: DEFAULT_HEADER_WORD };

/** An admin's form for a team profile's definition: no key field at all. */
export function TeamProfileForm({ profile, onSaved, onCancel }: { profile: Profile | null; onSaved: (id: string) => void; onCancel: () => void }) {
  const { t } = useTranslation('settings');
  const team = useProfiles((s) => s.team);
  const [values, setValues] = useState<TeamProfileInput>(() => (profile ? { id: profile.id, name: profile.name, baseUrl: profile.baseUrl, environment: profile.environment, headerWord: profile.headerWord } : BLANK));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  const prefix = profile ? `tp-${profile.id}` : 'tp-new';
  const set = (key: keyof TeamProfileInput) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setValues((v) => ({ ...v, [key]: e.target.value }));

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (busy) return;
    const parsed = teamProfileInputSchema.safeParse(values);
    if (!parsed.success) return setErrors(toFieldErrors(parsed.error.issues));
    setErrors({});
    setBusy(true);
    const result = await team('teamProfiles:save', parsed.data);
    setBusy(false);
    if (result.ok) onSaved(result.value.id);
    else {
      setErrors(result.error.fields ?? {});
      setFailure(result.error);
    }
  }

  return (
    <form className="card form" onSubmit={(e) => void submit(e)} aria-label={profile ? t('team.editLabel', { name: profile.name }) : t('team.newTitle')} noValidate>
      <h2>{profile ? t('team.editTitle', { name: profile.name }) : t('team.newTitle')}</h2>
      <p className="muted small">{t('team.sharedNote')}</p>
      {failure ? <ErrorNotice failure={failure} /> : null}
      <ConnectionFields prefix={prefix} values={values} errors={errors} set={set} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>{t('cancel')}</button>
        <button type="submit" className="primary" disabled={busy}>{t('team.save')}</button>
      </div>
    </form>
  );
}

/** This desktop's public keys for a team profile (the secrets follow in SecretKeys, into the keychain). */
export function TeamKeys({ profile }: { profile: Profile }) {
  const { t } = useTranslation('settings');
  const team = useProfiles((s) => s.team);
  const [values, setValues] = useState({ paymentPublicKey: profile.paymentPublicKey, payoutPublicKey: profile.payoutPublicKey });
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const missing = profile.payoutPublicKey === '' || !profile.hasPayoutSecret;
  const field = (key: 'paymentPublicKey' | 'payoutPublicKey', label: string) => {
    const id = `tk-${profile.id}-${key}`;
    return (
      <Field id={id} label={label} errors={failure?.fields?.[key]}>
        <input id={id} value={values[key]} autoComplete="off" onChange={(e) => { setSaved(false); setValues((v) => ({ ...v, [key]: e.target.value })); }} {...describedBy(id, failure?.fields?.[key], false)} />
      </Field>
    );
  };

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setFailure(null);
    const result = await team('teamProfiles:setKeys', { profileId: profile.id, ...values });
    setBusy(false);
    if (result.ok) setSaved(true);
    else setFailure(result.error);
  }

  return (
    <form className="card form" onSubmit={(e) => void submit(e)} aria-label={t('team.keysTitle')} id="team-keys">
      <h2>{t('team.keysTitle')}</h2>
      <p className="muted small">{t('team.keysIntro')}</p>
      {missing ? <div className="notice notice-warn" role="note">{t('team.keysMissing', { name: profile.name })}</div> : null}
      {failure && !failure.fields ? <ErrorNotice failure={failure} /> : null}
      {field('paymentPublicKey', t('paymentKey'))}
      {field('payoutPublicKey', t('payoutKey'))}
      {saved ? <p role="status" className="muted small">{t('team.keysSaved')}</p> : null}
      <div className="actions left">
        <button type="submit" className="primary" disabled={busy}>{t('team.saveKeys')}</button>
      </div>
    </form>
  );
}

/** What the detail card says of where the profile lives, and what an admin may do about it. */
export function ScopeNote({ profile, onEdit, onRemove }: { profile: Profile; onEdit: () => void; onRemove: () => void }) {
  const { t } = useTranslation('settings');
  const admin = useTeamAdmin();
  const team = useProfiles((s) => s.team);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [published, setPublished] = useState(false);
  if (!profile.scope) return null;
  const name = profileName(profile);
  async function publish() {
    setFailure(null);
    const result = await team('teamProfiles:publish', { id: profile.id });
    if (result.ok) setPublished(true);
    else setFailure(result.error);
  }
  return (
    <div className={`notice ${profile.scope === 'team' ? 'notice-scope' : 'notice-warn'}`} role="note">
      <p>{profile.scope === 'team' ? t('team.sharedNote') : t('team.desktopNote')}</p>
      {profile.scope === 'team' && !admin ? <p className="muted small">{t('team.adminOnly')}</p> : null}
      {profile.scope === 'desktop' && admin ? <p className="muted small">{t('team.desktopAdminNote')}</p> : null}
      {published ? <p role="status">{t('team.published', { name })}</p> : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
      {admin ? (
        <div className="actions left">
          {profile.scope === 'team' ? (
            <>
              <button type="button" className="secondary" onClick={onEdit}>{t('team.edit', { name })}</button>
              <button type="button" className="secondary danger-text" onClick={onRemove}>{t('team.remove', { name })}</button>
            </>
          ) : (
            <button type="button" className="secondary" onClick={() => void publish()}>{t('team.publish', { name })}</button>
          )}
        </div>
      ) : null}
    </div>
  );
}
