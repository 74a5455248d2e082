/**
 * A profile's keys: the public key shown, the secret entered once into a password field and never
 * shown again. After saving, the field is emptied and unmounted, so the secret is in no DOM node.
 */
import { useState } from 'react';
import type { ApiFailure, Profile } from '../../../shared/api';
import type { KeyType } from '../../../shared/contract';
import { CopyButton, ErrorNotice, Field, describedBy } from '../components/common';
import { useProfiles } from '../stores';

function SecretKey({ profile, keyType }: { profile: Profile; keyType: KeyType }) {
  const setSecret = useProfiles((s) => s.setSecret);
  const deleteSecret = useProfiles((s) => s.deleteSecret);
  const stored = keyType === 'payment' ? profile.hasPaymentSecret : profile.hasPayoutSecret;
  const publicKey = keyType === 'payment' ? profile.paymentPublicKey : profile.payoutPublicKey;
  const label = keyType === 'payment' ? 'Payment' : 'Payout';
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
      <h3>{label} key</h3>
      <dl className="facts compact">
        <dt>Public key</dt>
        <dd>
          {publicKey ? (
            <span className="id-value">
              <span className="mono">{publicKey}</span> <CopyButton value={publicKey} label={`${label.toLowerCase()} public key`} />
            </span>
          ) : (
            <span className="muted">Not set: add it in the profile above.</span>
          )}
        </dd>
        <dt>Secret key</dt>
        <dd>
          {profile.builtIn ? (
            <span className="muted">Provided by the local sandbox engine (see the Sandbox screen)</span>
          ) : stored ? (
            <span className="stored" role="status">Stored in the keychain</span>
          ) : (
            <span className="muted">Not stored</span>
          )}
        </dd>
      </dl>
      {showInput ? (
        <form onSubmit={(e) => void save(e)} className="secret-form" aria-label={`Store the ${label.toLowerCase()} secret`}>
          <Field id={id} label={`${label} secret key`} errors={fieldErrors} hint="Entered once; kept in the operating system’s keychain and never shown again.">
            <input id={id} type="password" autoComplete="new-password" value={secret} onChange={(e) => setSecretText(e.target.value)} {...describedBy(id, fieldErrors, true)} />
          </Field>
          <div className="actions left">
            <button type="submit" className="primary" disabled={busy || secret.length === 0}>
              Save {label.toLowerCase()} secret
            </button>
            {replacing ? (
              <button type="button" className="secondary" onClick={() => { setReplacing(false); setSecretText(''); }}>
                Cancel
              </button>
            ) : null}
          </div>
        </form>
      ) : profile.builtIn ? null : (
        <div className="actions left">
          <button type="button" className="secondary" onClick={() => setReplacing(true)}>
            Replace {label.toLowerCase()} secret
          </button>
          <button type="button" className="secondary danger-text" onClick={() => void remove()} disabled={busy}>
            Delete {label.toLowerCase()} secret
          </button>
        </div>
      )}
      {failure && !fieldErrors ? <ErrorNotice failure={failure} /> : null}
    </div>
  );
}

export function SecretKeys({ profile }: { profile: Profile }) {
  return (
    <div className="card">
      <h2>Keys</h2>
      <div className="keys">
        <SecretKey profile={profile} keyType="payment" />
        <SecretKey profile={profile} keyType="payout" />
      </div>
    </div>
  );
}
