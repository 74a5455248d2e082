/**
 * What a developer's own app needs from the local sandbox besides its keys: the webhook signing
 * secret (once a webhook URL is set) with a one-line check of a delivery, and the control API's
 * admin token and the OpenAPI document's URL. Secrets are fetched only when the developer presses
 * Reveal or Copy, held in this component's state, and hidden again on request.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyButton, ErrorNotice } from '../components/common';
import { useSandbox } from '../stores';
import type { ApiFailure } from '../../../shared/api';

type Which = 'webhookSecret' | 'adminToken';

/** A secret shown as dots until revealed; Copy fetches it too, without showing it. */
function SecretValue({ which, label }: { which: Which; label: string }) {
  const { t } = useTranslation('sandbox');
  const reveal = useSandbox((s) => s.revealSecret);
  const [value, setValue] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [copied, setCopied] = useState(false);

  async function fetchValue(): Promise<string | null> {
    if (value !== null) return value;
    const result = await reveal(which);
    if (!result.ok) {
      setFailure(result.error);
      return null;
    }
    setFailure(null);
    setValue(result.value.value);
    return result.value.value;
  }
  async function toggle() {
    if (shown) return setShown(false);
    if ((await fetchValue()) !== null) setShown(true);
  }
  async function copy() {
    const secret = await fetchValue();
    if (secret === null) return;
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }
  const id = `secret-${which}`;
  return (
    <div className="secret-line">
      <span className="secret-label" id={`${id}-label`}>{label}</span>
      <code className="mono nowrap secret-value" data-shown={shown}>
        {shown && value !== null ? value : '••••••••••••••••'}
      </code>
      <button type="button" className="secondary small" aria-pressed={shown} aria-label={t(shown ? 'access.hideLabel' : 'access.revealLabel', { what: label })} onClick={() => void toggle()}>
        {shown ? t('access.hide') : t('access.reveal')}
      </button>
      <button type="button" className="copy" aria-label={t('access.copyLabel', { what: label })} onClick={() => void copy()}>
        {copied ? t('access.copied') : t('access.copy')}
      </button>
      {failure ? <ErrorNotice failure={failure} /> : null}
    </div>
  );
}

/** Under the webhook URL: the signing secret and how to check a delivery with it. */
export function WebhookSigning() {
  const { t } = useTranslation('sandbox');
  const webhookUrl = useSandbox((s) => s.engine?.webhookUrl ?? null);
  if (!webhookUrl) return null;
  return (
    <div className="access-block" aria-label={t('access.signingTitle')} role="group">
      <h3>{t('access.signingTitle')}</h3>
      <SecretValue which="webhookSecret" label={t('access.signingSecret')} />
      <p className="hint">{t('access.verifyIntro')}</p>
      <div className="snippet-line">
        <code className="mono">{VERIFY_EXAMPLE}</code>
        <CopyButton value={VERIFY_EXAMPLE} label={t('access.verifyExample')} />
      </div>
    </div>
  );
}

/**
 * Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`
 * keyed with the base64 part of the `whsec_` secret (packages/sandbox/src/webhooks/signature.ts).
 */
export const VERIFY_EXAMPLE =
  "require('crypto').createHmac('sha256', Buffer.from(process.env.WEBHOOK_SECRET.slice(6), 'base64')).update(`${h['webhook-id']}.${h['webhook-timestamp']}.${rawBody}`).digest('base64') === h['webhook-signature'].split(' ')[0].slice(3)";

/** The control API and the OpenAPI document, for scripts and code generators. */
export function DeveloperAccess() {
  const { t } = useTranslation('sandbox');
  const engine = useSandbox((s) => s.engine);
  if (!engine?.running || !engine.controlUrl) return null;
  return (
    <div className="card" role="region" aria-labelledby="access-title">
      <h2 id="access-title">{t('access.title')}</h2>
      {engine.openApiUrl ? (
        <div className="secret-line">
          <span className="secret-label">{t('access.openApi')}</span>
          <code className="mono">{engine.openApiUrl}</code>
          <CopyButton value={engine.openApiUrl} label={t('access.openApi')} />
        </div>
      ) : null}
      <div className="secret-line">
        <span className="secret-label">{t('access.controlApi')}</span>
        <code className="mono">{engine.controlUrl}</code>
        <CopyButton value={engine.controlUrl} label={t('access.controlApi')} />
      </div>
      <SecretValue which="adminToken" label={t('access.adminToken')} />
      <p className="hint">{t('access.adminHint')}</p>
    </div>
  );
}
