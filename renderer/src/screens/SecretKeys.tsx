/**
 * A profile's keys: the public key shown, the secret entered once into a password field and never
 * shown again. After saving, the field is emptied and unmounted, so the secret is in no DOM node.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure, Profile } from '../../../shared/api';
import type { KeyType } from '../../../shared/contract';
import { CopyButton, ErrorNotice, Field, describedBy } from '../components/common';
import { useProfiles } from '../stores';

function SecretKey({ profile, keyType }: { profile: Profile; keyType: KeyType }) {
  const setSecret = useProfiles((s) => s.setSecret);
  const deleteSecret = useProfiles((s) => s.deleteSecret);
  const stored = keyType === 'payment' ? profile.hasPaymentSecret : profile.hasPayoutSecret;
  const publicKey = keyType === 'payment' ? profile.paymentPublicKey : profile.payoutPublicKey;
  const { t } = useTranslation('keys');
  const [replacing, setReplacing] = useState(false);
  const [secret, setSecretText] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const id = `secret-${profile.id}-${keyType}`;
  const fieldErrors = failure?.fields?.secret;

  async function save(event: React.FormEvent) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setFailure(null);
    const result = await setSecret(profile.id, keyType, secret);
    setBusy(false);
    if (result.ok) {
      setSecretText('');
      setReplacing(false);
    } else setFailure(result.error);
  }
  async function remove() {
    setBusy(true);
    const result = await deleteSecret(profile.id, keyType);
    setBusy(false);
    if (!result.ok) setFailure(result.error);
  }

  const showInput = !profile.builtIn && (!stored || replacing);
  return (
    <div className="key-block">
      <h3>{t(`${keyType}.heading`)}</h3>
      <dl className="facts compact">
        <dt>{t('publicKey')}</dt>
        <dd>
          {publicKey ? (
            <span className="id-value">
              <span className="mono nowrap">{publicKey}</span> <CopyButton value={publicKey} label={t(`${keyType}.copy`)} />
            </span>
          ) : (
            <span className="muted">{t('publicMissing')}</span>
          )}
        </dd>
        <dt>{t('secretKey')}</dt>
        <dd>
          {profile.builtIn ? (
            <span className="muted">{t('builtIn')}</span>
          ) : stored ? (
            <span className="stored" role="status">{t('stored')}</span>
          ) : (
            <span className="muted">{t('notStored')}</span>
          )}
        </dd>
      </dl>
      {showInput ? (
        <form onSubmit={(e) => void save(e)} className="secret-form" aria-label={t(`${keyType}.form`)}>
          <Field id={id} label={t(`${keyType}.field`)} errors={fieldErrors} hint={t('hint')}>
            <input id={id} type="password" autoComplete="new-password" value={secret} onChange={(e) => setSecretText(e.target.value)} {...describedBy(id, fieldErrors, true)} />
          </Field>
          <div className="actions left">
            <button type="submit" className="primary" disabled={busy || secret.length === 0}>
              {t(`${keyType}.save`)}
            </button>
            {replacing ? (
              <button type="button" className="secondary" onClick={() => { setReplacing(false); setSecretText(''); }}>
                {t('cancel')}
              </button>
            ) : null}
          </div>
        </form>
      ) : profile.builtIn ? null : (
        <div className="actions left">
          <button type="button" className="secondary" onClick={() => setReplacing(true)}>
            {t(`${keyType}.replace`)}
          </button>
          <button type="button" className="secondary danger-text" onClick={() => void remove()} disabled={busy}>
            {t(`${keyType}.delete`)}
          </button>
        </div>
      )}
      {failure && !fieldErrors ? <ErrorNotice failure={failure} /> : null}
    </div>
  );
}

export function SecretKeys({ profile }: { profile: Profile }) {
  const { t } = useTranslation('keys');
  if (profile.keysWithSender) {
    // No secret field at all: the team sender holds these keys (docs/team-sender.md).
    return (
      <div className="card">
        <h2>{t('title')}</h2>
        <p role="note">{t('withSender')}</p>
      </div>
    );
  }
  return (
    <div className="card">
      <h2>{t('title')}</h2>
      <div className="keys">
        <SecretKey profile={profile} keyType="payment" />
        <SecretKey profile={profile} keyType="payout" />
      </div>
    </div>
  );
}
