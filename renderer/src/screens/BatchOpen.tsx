/** One batch, open: its header and steps, then what its state calls for. */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LOCAL_SANDBOX_PROFILE_ID, type BatchDetail } from '../../../shared/api';
import { ErrorNotice, Loading, storedProfileName } from '../components/common';
import { formatCount } from '../format/money';
import { formatDateTime } from '../format/time';
import { useBatch, useProfiles } from '../stores';
import { BatchConfirmDialog } from './BatchConfirm';
import { BatchStateBadge } from './BatchList';
import { BatchPreviewCard } from './BatchPreview';
import { BatchProgressCard } from './BatchProgress';
import { ApprovalTrail } from './ApprovalTrail';
import { BatchRehearsalCard } from './BatchRehearsal';
import { BatchReportCard } from './BatchReport';
import { BatchRows, DuplicateImportNotice } from './BatchRows';
import { CancelledRemainingNotice, SentEarlierNotice } from './BatchIdentity';

type Step = 'rows' | 'preview' | 'rehearse' | 'send' | 'report';
const STEPS: Step[] = ['rows', 'preview', 'rehearse', 'send', 'report'];

function useSteps(detail: BatchDetail): { done: Set<Step>; current: Step } {
  const previewReady = useBatch((s) => s.preview.status === 'ready' && s.preview.value !== null && !s.preview.value.overBalance);
  const { state, counts } = detail.batch;
  const done = new Set<Step>();
  if (state !== 'draft') {
    done.add('rows').add('preview');
    if (detail.rehearsal) done.add('rehearse');
    if (state === 'done' || state === 'cancelled') done.add('send');
    return { done, current: done.has('send') ? 'report' : 'send' };
  }
  if (counts.invalid === 0 && counts.rows > 0) done.add('rows');
  if (previewReady) done.add('preview');
  if (detail.rehearsal) done.add('rehearse');
  const current = STEPS.find((step) => !done.has(step)) ?? 'send';
  return { done, current };
}

function Steps({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation(['batch', 'common']);
  const { done, current } = useSteps(detail);
  return (
    <ol className="batch-steps" aria-label={t('steps.label')}>
      {STEPS.map((step) => (
        <li key={step} data-state={done.has(step) ? 'done' : undefined} aria-current={step === current ? 'step' : undefined}>
          {t(`steps.${step}`)}
        </li>
      ))}
    </ol>
  );
}

function DraftActions({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation(['batch', 'common']);
  const preview = useBatch((s) => s.preview);
  const acceptDuplicateFile = useBatch((s) => s.acceptDuplicateFile);
  const [confirming, setConfirming] = useState(false);
  const sentBefore = detail.importedBefore.some((earlier) => earlier.state !== 'draft');
  const ready =
    detail.batch.counts.invalid === 0 &&
    detail.batch.counts.valid > 0 &&
    preview.status === 'ready' &&
    preview.value !== null &&
    !preview.value.overBalance &&
    // Rows sent before (the same file, or the same external ids) are confirmed knowingly, or dropped.
    (!(sentBefore || detail.sentEarlier) || acceptDuplicateFile);
  // Another desktop's Local sandbox batch, confirmed here on the Local sandbox too: only that desktop sends it
  // (confirmed under another profile, it becomes this desktop's batch).
  const activeId = useProfiles((s) => s.activeId);
  const elsewhereBy = activeId === LOCAL_SANDBOX_PROFILE_ID ? detail.batch.sandboxElsewhereBy : undefined;
  return (
    <div className="actions">
      <button
        type="button"
        className={detail.batch.environment === 'live' ? 'danger' : 'primary'}
        disabled={!ready || elsewhereBy !== undefined}
        aria-describedby={elsewhereBy !== undefined ? 'batch-sandbox-refused' : undefined}
        onClick={() => setConfirming(true)}
      >
        {t('confirm.open')}
      </button>
      {elsewhereBy !== undefined ? (
        <p className="notice notice-warn sandbox-refused" role="note" id="batch-sandbox-refused">
          {t('refusal.sandboxBatchElsewhere', { login: elsewhereBy })}
        </p>
      ) : null}
      {confirming && preview.value ? <BatchConfirmDialog batch={detail.batch} preview={preview.value} rehearsal={detail.rehearsal} onClose={() => setConfirming(false)} /> : null}
    </div>
  );
}

export function BatchOpen() {
  const { t } = useTranslation(['batch', 'common']);
  const detail = useBatch((s) => s.detail);
  const close = useBatch((s) => s.close);
  const previewStatus = useBatch((s) => s.preview.status);
  const runPreview = useBatch((s) => s.runPreview);
  const value = detail.value;
  const draftValid = value?.batch.state === 'draft' && value.batch.counts.invalid === 0 && value.batch.counts.valid > 0;
  // The preview only reads: it is computed again whenever the rows change and are all valid.
  useEffect(() => {
    if (draftValid && previewStatus === 'idle') void runPreview();
  }, [draftValid, previewStatus, runPreview]);

  if (!value) {
    return (
      <section className="screen wide full">
        <button type="button" className="link" onClick={close}>
          ← {t('back')}
        </button>
        {detail.status === 'loading' ? <Loading label={t('list.loading')} /> : null}
        {detail.error ? <ErrorNotice failure={detail.error} /> : null}
      </section>
    );
  }
  const { batch } = value;
  const draft = batch.state === 'draft';
  return (
    <section className="screen wide full" aria-labelledby="batch-open-title">
      <button type="button" className="link" onClick={close}>
        ← {t('back')}
      </button>
      <header className="batch-head">
        <div>
          <p className="eyebrow">{t('title')}</p>
          <h1 id="batch-open-title">{batch.fileName}</h1>
          <p className="muted small">
            {storedProfileName(batch.profileId, batch.profileName)} · <span className={`env-pill env-${batch.environment}`}>{t(`common:environment.${batch.environment}`)}</span> · {formatDateTime(batch.createdAt)} ·{' '}
            {t('table.summary', { count: batch.counts.rows, n: formatCount(batch.counts.rows) })}
          </p>
          {batch.retryOf ? <p className="muted small">{t('retryOf', { id: batch.retryOf })}</p> : null}
        </div>
        <BatchStateBadge state={batch.state} />
      </header>
      <Steps detail={value} />
      {detail.error ? <ErrorNotice failure={detail.error} /> : null}
      <ApprovalTrail subject={{ batchId: batch.id }} />
      {/* The rows keep their key across both branches: when sending starts the same table stays (its
          scroll, its measured rows) instead of a new one mounted, measured and laid out in one frame
          (issue 28 item 3: 39 ms of that frame's CPU). */}
      {draft ? (
        <>
          <DuplicateImportNotice detail={value} />
          <SentEarlierNotice detail={value} />
          <BatchRows key="rows" detail={value} />
          <div className="two-col">
            <BatchPreviewCard detail={value} />
            <BatchRehearsalCard detail={value} />
          </div>
          <DraftActions detail={value} />
        </>
      ) : (
        <>
          <BatchProgressCard detail={value} />
          <CancelledRemainingNotice detail={value} />
          <BatchReportCard detail={value} />
          <BatchRows key="rows" detail={value} />
        </>
      )}
    </section>
  );
}
