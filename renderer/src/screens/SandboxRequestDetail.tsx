/**
 * One recorded request: what was answered, the diagnosis in plain words, the canonical string
 * the sandbox signed, the body received, and a curl command that sends it correctly signed.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure, SignedExample } from '../../../shared/api';
import type { InspectedRequest } from '../../../shared/contract';
import { CopyButton, ErrorNotice } from '../components/common';
import { formatDateTime } from '../format/time';
import { useInspector } from '../stores';
import { diagnosisSentence, formatMs } from './inspectorWords';

function Reproduce({ record }: { record: InspectedRequest }) {
  const { t } = useTranslation('inspector');
  const reproduce = useInspector((s) => s.reproduce);
  const [answer, setAnswer] = useState<{ example: SignedExample } | { failure: ApiFailure } | null>(null);
  useEffect(() => {
    if (record.bodyTruncated) return;
    let current = true;
    void reproduce(record).then((result) => current && setAnswer(result));
    return () => {
      current = false;
    };
  }, [record, reproduce]);
  return (
    <section aria-label={t('detail.reproduceTitle')}>
      <h4>{t('detail.reproduceTitle')}</h4>
      {record.bodyTruncated ? <p className="muted small">{t('detail.reproduceTruncated')}</p> : <p className="muted small">{t('detail.reproduceNote')}</p>}
      {answer && 'failure' in answer ? <ErrorNotice failure={answer.failure} /> : null}
      {answer && 'example' in answer ? (
        <>
          <pre className="code-block" aria-label={t('detail.copyCurl')}>{answer.example.snippets.curl}</pre>
          <CopyButton value={answer.example.snippets.curl} label={t('detail.copyCurl')} />
        </>
      ) : null}
    </section>
  );
}

export function SandboxRequestDetail({ record, onClose }: { record: InspectedRequest; onClose: () => void }) {
  const { t } = useTranslation('inspector');
  const diagnosis = record.diagnosis;
  const heading = useRef<HTMLHeadingElement>(null);
  // The detail is drawn under the list, often below the window's edge after a long list: the row
  // opened is brought into view and its heading takes focus, so the click visibly did something and
  // a keyboard user reads on from there (issue 37 item 7).
  useLayoutEffect(() => {
    const target = heading.current;
    if (!target) return;
    // The section, whose scroll margin keeps it clear of the sticky top bar.
    (target.closest('section') ?? target).scrollIntoView?.({ block: 'start' });
    target.focus({ preventScroll: true });
  }, [record.id]);
  return (
    <section className="request-detail" aria-labelledby="request-detail-title">
      <div className="list-bar">
        <h3 id="request-detail-title" className="mono" ref={heading} tabIndex={-1}>{t('detail.title', { method: record.method, path: record.path })}</h3>
        <button type="button" className="secondary small" onClick={onClose} aria-label={t('detail.close')}>{t('detail.closeButton')}</button>
      </div>
      <p>
        {t('detail.answered', { status: record.status, code: record.code ?? '', ms: formatMs(record.durationMs), time: formatDateTime(record.at) })}
        <br />
        <span className="muted small">
          {t('detail.from', { address: record.remoteAddress, key: record.publicKey ?? t('requests.noKey'), environment: record.environment ?? '—' })}
        </span>
      </p>
      {record.status < 400 ? <p className="muted">{t('detail.success')}</p> : null}
      {record.status >= 400 ? (
        <div className={diagnosis ? 'notice notice-error' : 'notice'} role="note" aria-label={t('detail.diagnosisTitle')}>
          <strong>{t('detail.diagnosisTitle')}</strong>
          <p className="diagnosis">{diagnosis ? diagnosisSentence(t, diagnosis, record) : t('detail.noDiagnosis')}</p>
        </div>
      ) : null}
      {diagnosis?.check === 'signature' ? (
        <section aria-label={t('detail.canonicalTitle')}>
          <h4>{t('detail.canonicalTitle')}</h4>
          <p className="muted small">{t('detail.canonicalNote')}</p>
          <pre className="code-block">{diagnosis.canonical}</pre>
          <CopyButton value={diagnosis.canonical} label={t('detail.copyCanonical')} />
          {diagnosis.canonicalTruncated ? <p className="muted small">{t('detail.canonicalTruncated')}</p> : null}
          <p className="small mono">
            {t('detail.payload', { kind: diagnosis.payloadKind === 'query' ? t('detail.payloadQuery') : t('detail.payloadBody'), length: diagnosis.payloadLength, hash: diagnosis.payloadSha256 })}
          </p>
          <p className="small muted">{t('detail.skew', { seconds: diagnosis.skewSeconds })}</p>
        </section>
      ) : null}
      {record.bodyLength > 0 ? (
        <details>
          <summary>{t('detail.bodyTitle', { length: record.bodyLength })}</summary>
          <pre className="code-block">{record.body}</pre>
          {record.bodyTruncated ? <p className="muted small">{t('detail.bodyTruncated')}</p> : null}
        </details>
      ) : null}
      <Reproduce record={record} />
    </section>
  );
}
