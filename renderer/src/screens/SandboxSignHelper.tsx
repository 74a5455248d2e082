/**
 * "Sign a request": method, path, query and body in; the four headers, the string to sign and
 * curl, Node and PHP snippets out, signed in main with the local sandbox's test key only.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyButton, ErrorNotice } from '../components/common';
import { useInspector, useSandbox } from '../stores';

const LANGUAGES = [
  { id: 'curl', label: 'curl' },
  { id: 'node', label: 'Node.js' },
  { id: 'php', label: 'PHP' },
] as const;

const EXAMPLE_BODY = JSON.stringify({
  payment_method: 'service_demo',
  amount: 5000,
  phone_number: '+237650000001',
  customer: { first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com' },
  external_id: 'order-1001',
  description: 'Order 1001',
});

export function SandboxSignHelper() {
  const { t, i18n } = useTranslation('inspector');
  const example = useInspector((s) => s.example);
  const failure = useInspector((s) => s.signFailure);
  const sign = useInspector((s) => s.sign);
  const [method, setMethod] = useState<'GET' | 'POST'>('POST');
  const [path, setPath] = useState('/v1/payments');
  const [query, setQuery] = useState('');
  const [body, setBody] = useState(EXAMPLE_BODY);
  const [keyType, setKeyType] = useState<'' | 'payment' | 'payout'>('');
  const [language, setLanguage] = useState<(typeof LANGUAGES)[number]['id']>('curl');
  const [busy, setBusy] = useState(false);
  const clockOffset = useSandbox((s) => s.engine?.clockOffsetSeconds ?? 0);
  /** The request last signed: signed again when the sandbox clock moves (its timestamp would be refused). */
  const lastSigned = useRef<Parameters<typeof sign>[0] | null>(null);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    const input = { method, path: path.trim(), query: method === 'GET' ? query.trim().replace(/^\?/, '') : '', body: method === 'POST' ? body : '', ...(keyType ? { keyType } : {}), language: i18n.language === 'fr' ? ('fr' as const) : ('en' as const) };
    lastSigned.current = input;
    await sign(input);
    setBusy(false);
  }
  useEffect(() => {
    if (lastSigned.current) void sign(lastSigned.current);
  }, [clockOffset, sign]);
  const fields = failure?.fields ?? {};
  const snippet = example?.snippets[language] ?? '';

  return (
    <div className="card" aria-labelledby="sign-title">
      <h2 id="sign-title">{t('sign.title')}</h2>
      <p className="muted small">{t('sign.intro')}</p>
      <form className="inline-form" aria-label={t('sign.title')} onSubmit={(e) => void submit(e)}>
        <label>
          {t('sign.method')}
          <select value={method} onChange={(e) => setMethod(e.target.value as 'GET' | 'POST')}>
            <option value="GET">GET</option>
            <option value="POST">POST</option>
          </select>
        </label>
        <label className="grow">
          {t('sign.path')}
          <input className="mono" value={path} onChange={(e) => setPath(e.target.value)} aria-invalid={fields.path ? true : undefined} />
        </label>
        {method === 'GET' ? (
          <label className="grow">
            {t('sign.query')}
            <input className="mono" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="identifier_type=external_id" aria-invalid={fields.query ? true : undefined} />
          </label>
        ) : null}
        <label>
          {t('sign.keyType')}
          <select value={keyType} onChange={(e) => setKeyType(e.target.value as '' | 'payment' | 'payout')}>
            <option value="">{t('sign.keyAuto')}</option>
            <option value="payment">{t('sign.keyPayment')}</option>
            <option value="payout">{t('sign.keyPayout')}</option>
          </select>
        </label>
        {method === 'POST' ? (
          <label className="grow full-row">
            {t('sign.body')}
            <textarea className="mono" rows={4} value={body} onChange={(e) => setBody(e.target.value)} aria-invalid={fields.body ? true : undefined} />
          </label>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>{t('sign.submit')}</button>
      </form>
      {failure ? <ErrorNotice failure={failure} /> : null}
      {example ? (
        <div className="signed-example">
          <p className="muted small">{t('sign.signedAt', { timestamp: example.timestamp, key: example.publicKey })}</p>
          <h3>{t('sign.headersTitle')}</h3>
          <table className="table small">
            <tbody>
              {example.headers.map((h) => (
                <tr key={h.name}>
                  <th scope="row" className="mono nowrap">{h.name}</th>
                  <td className="mono">{h.value} <CopyButton value={h.value} label={t('sign.copyHeader', { name: h.name })} /></td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>{t('sign.canonicalTitle')}</h3>
          <pre className="code-block">{example.canonical}</pre>
          <h3>{t('sign.snippetsTitle')}</h3>
          <div role="tablist" aria-label={t('sign.snippetsTitle')} className="tabs">
            {LANGUAGES.map((l) => (
              <button key={l.id} type="button" role="tab" aria-selected={language === l.id} className={language === l.id ? 'tab selected' : 'tab'} onClick={() => setLanguage(l.id)}>
                {l.label}
              </button>
            ))}
          </div>
          <pre className="code-block" role="tabpanel" aria-label={LANGUAGES.find((l) => l.id === language)?.label}>{snippet}</pre>
          <CopyButton value={snippet} label={t('sign.copySnippet', { language: LANGUAGES.find((l) => l.id === language)?.label ?? '' })} />
        </div>
      ) : null}
    </div>
  );
}
