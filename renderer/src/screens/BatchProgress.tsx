/** Sending: a progress bar, the counters, rate and time left, and Pause / Resume / Cancel remaining. */
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { batchFigures, LOCAL_SANDBOX_PROFILE_ID, type BatchDetail, type BatchProgress, type ServiceWait } from '../../../shared/api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { formatCount } from '../format/money';
import { formatClockTime } from '../format/time';
import { useBatch, useProfiles, useWorkspace } from '../stores';
import { SendRefusedNote, useMaySend } from '../components/WorkspaceBar';

/** Counters from the rows' counts, for a batch with no push yet (reopened, finished, interrupted). */
export function progressFromCounts(detail: BatchDetail): BatchProgress {
  const { counts, id, state } = detail.batch;
  const figures = batchFigures(counts);
  return {
    batchId: id,
    mode: 'send',
    state,
    sent: figures.sent,
    accepted: figures.accepted,
    failed: figures.failed,
    unknown: figures.unknown,
    remaining: figures.remaining,
    ratePerSecond: 0,
    etaSeconds: null,
    final: figures.final,
    completed: figures.completed,
    processing: figures.processing,
    inFlight: figures.inFlight,
    settled: figures.settled,
    elsewhere: figures.elsewhere,
    moved: figures.moved,
  };
}

/**
 * The figures the open batch shows, one snapshot for every card (progress, report): the latest
 * push while it sends or pauses (newer than the rows' counts), else the rows' counts.
 */
export function useShownProgress(detail: BatchDetail): { p: BatchProgress; pushed: BatchProgress | null; counted: BatchProgress } {
  const pushed = useBatch((s) => (s.progress?.mode === 'send' && s.progress.batchId === detail.batch.id ? s.progress : null));
  const counted = progressFromCounts(detail);
  const { state } = detail.batch;
  // Once the batch has stopped, the rows are the truth.
  const p = pushed && (state === 'sending' || state === 'paused') ? pushed : counted;
  return { p, pushed, counted };
}

function useDuration() {
  const { t } = useTranslation('batch');
  return (seconds: number) =>
    seconds < 90 ? t('duration.seconds', { count: Math.max(1, Math.round(seconds)), n: formatCount(Math.max(1, Math.round(seconds))) }) : t('duration.minutes', { count: Math.round(seconds / 60), n: formatCount(Math.round(seconds / 60)) });
}

/** Whole seconds from now until `iso` (0 once past); re-renders every second while it counts down. */
function useSecondsUntil(iso: string | null | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  const end = iso ? Date.parse(iso) : NaN;
  const counting = Number.isFinite(end) && end > now;
  useEffect(() => {
    if (!counting) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [counting]);
  // A new wait (a new `iso`) counts from the present, not from the last tick.
  useEffect(() => setNow(Date.now()), [iso]);
  return counting ? Math.ceil((end - now) / 1000) : 0;
}

/**
 * The time left, honestly: the rows left at the measured rate, plus the rest of a rate-limit wait
 * (the runner's own estimate knows nothing of the wait); null when no rate is known yet.
 */
export function honestSecondsLeft(p: Pick<BatchProgress, 'remaining' | 'ratePerSecond' | 'etaSeconds'>, waitSeconds: number): number | null {
  if (p.remaining <= 0) return null;
  const sending = p.ratePerSecond > 0 ? p.remaining / p.ratePerSecond : p.etaSeconds;
  if (sending === null) return null;
  return sending + waitSeconds;
}

/** The rate as counted: rows answered over the last minute, or since the start of a younger run. */
function RateValue({ p }: { p: BatchProgress }) {
  const { t } = useTranslation('batch');
  const n = p.answeredInWindow;
  const seconds = p.rateWindowSeconds ?? 0;
  if (n === undefined || seconds < 1) return <>—</>;
  return <>{seconds >= 60 ? t('progress.rateWindow', { n: formatCount(n) }) : t('progress.rateSinceStart', { n: formatCount(n), seconds: formatCount(seconds) })}</>;
}

/** What the service said when it asked to wait: maintenance (503), its rate limit (429), or another answer. */
function WaitNotice({ wait, seconds }: { wait: ServiceWait; seconds: number }) {
  const { t } = useTranslation('batch');
  const time = formatClockTime(wait.until);
  const n = formatCount(seconds);
  const headline =
    wait.httpStatus === 503
      ? t('progress.waitingMaintenance', { time, seconds: n })
      : wait.httpStatus === 429
        ? t('progress.waitingLimited', { time, seconds: n })
        : wait.httpStatus === null
          ? t('progress.waitingRateLimit', { seconds: n })
          : t('progress.waitingService', { time, seconds: n });
  return (
    <>
      <strong className="batch-waiting">{headline}</strong>{' '}
      {wait.httpStatus === null ? t('progress.waitingRateLimitHint') : t('progress.waitSaid', { status: wait.httpStatus, code: wait.code, message: wait.message })}
    </>
  );
}

/** The wait a push announced (with what the service said, or only its end from an older runner). */
function pushedWait(p: BatchProgress): ServiceWait | null {
  if (p.waitingFor) return p.waitingFor;
  return p.waitingUntil ? { until: p.waitingUntil, httpStatus: null, code: '', message: '' } : null;
}

function Counter({ label, value, tone }: { label: string; value: ReactNode; tone?: 'ok' | 'bad' | 'warn' }) {
  return (
    <div className="batch-counter" data-tone={tone}>
      <span>{label}</span>
      <strong>{value}</strong>
    </div>
  );
}

function CancelRemaining({ remaining, onClose, onCancel }: { remaining: number; onClose: () => void; onCancel: () => void }) {
  const { t } = useTranslation('batch');
  const cancel = useBatch((s) => s.cancel);
  return (
    <ConfirmDialog
      title={t('progress.cancel')}
      keepLabel={t('progress.keep')}
      actLabel={t('progress.cancelYes')}
      onClose={onClose}
      onConfirm={() => {
        onCancel();
        void cancel();
      }}
    >
      {t('progress.cancelConfirm', { count: remaining, n: formatCount(remaining) })}
    </ConfirmDialog>
  );
}

export function BatchProgressCard({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation('batch');
  const { p, pushed, counted } = useShownProgress(detail);
  const pause = useBatch((s) => s.pause);
  const resume = useBatch((s) => s.resume);
  const join = useBatch((s) => s.join);
  const maySend = useMaySend();
  const onWorkspace = useWorkspace((s) => s.status?.store === 'workspace');
  const [joining, setJoining] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  // Pause / Cancel pressed: shown at once, until the batch leaves `sending` (the runner lets the
  // rows in flight settle first, which can take as long as the service's timeout).
  const [stopAsked, setStopAsked] = useState<'pause' | 'cancel' | null>(null);
  const duration = useDuration();
  const { state } = detail.batch;
  useEffect(() => {
    if (state !== 'sending') setStopAsked(null);
  }, [state]);
  const total = Math.max(1, p.sent + p.remaining);
  const unknownPct = (p.unknown / total) * 100;
  const failedPct = (p.failed / total) * 100;
  const okPct = Math.max(0, ((p.sent - p.failed - p.unknown) / total) * 100);
  const processing = p.processing ?? counted.processing ?? 0;
  const settled = p.settled ?? counted.settled ?? false;
  const unknownRows = detail.batch.counts.unknown;
  // The runner writes paused / cancelled first and reports `stopping` until the rows in flight settle.
  const live = state === 'sending' || state === 'paused' || state === 'cancelled' ? pushed : null;
  const stopping = live?.stopping ?? (state === 'sending' ? stopAsked : null);
  // A reopened batch has no push yet: its detail carries the wait the runner sits out now.
  const wait = live ? pushedWait(live) : (detail.wait ?? null);
  const waitSeconds = useSecondsUntil(state === 'sending' && !stopping ? wait?.until : null);
  const secondsLeft = honestSecondsLeft(p, waitSeconds);
  const inFlight = live?.inFlight;
  // A team workspace's batch another desktop is sending: this desktop may take rows too (batches:join).
  const sendingHere = detail.sendingHere === true;
  // Its profile's keys are with the team sender: the sender sends it; this desktop follows it, never helps.
  const bySender = useProfiles((s) => s.profiles.some((profile) => profile.id === detail.batch.profileId && profile.keysWithSender === true));
  const mayJoin = onWorkspace && maySend && state === 'sending' && !sendingHere && !stopping && !bySender;
  // Each desktop's Local sandbox is a service of its own: its batch is sent from the desktop it is on
  // only, and no other desktop helps (docs/decisions/local-sandbox-batch-stays-on-its-desktop.md).
  const elsewhereBy = detail.batch.sandboxElsewhereBy;
  const joinRefused = mayJoin && detail.batch.profileId === LOCAL_SANDBOX_PROFILE_ID;
  const resumeRefused = elsewhereBy !== undefined && (state === 'paused' || state === 'interrupted');
  const phase = stopping === 'pause' ? t('progress.statePausing') : stopping === 'cancel' ? t('progress.stateCancelling') : waitSeconds > 0 ? t('progress.stateWaiting') : null;

  return (
    <section className="card" aria-labelledby="batch-progress-title">
      <h2 id="batch-progress-title">
        {(state === 'done' || state === 'cancelled') && !stopping ? t('progress.headingDone') : t('progress.heading')}
        {phase ? <span className="batch-phase" data-phase={stopping ?? 'waiting'}> · {phase}</span> : null}
      </h2>
      {state === 'interrupted' ? (
        <div className="notice notice-warn" role="alert">
          <strong>{t('interrupted.title')}</strong>
          <p>{t('interrupted.body', { unknown: formatCount(unknownRows), remaining: formatCount(p.remaining) })}</p>
          {detail.batch.stateReason ? <p className="muted">{detail.batch.stateReason}</p> : null}
          <p className="hint">{t('interrupted.resumeHint')}</p>
        </div>
      ) : null}
      <div
        className="batch-progress-bar"
        role="progressbar"
        aria-label={t('progress.label')}
        aria-valuemin={0}
        aria-valuemax={p.sent + p.remaining}
        aria-valuenow={p.sent}
        aria-valuetext={t('progress.valueText', { sent: formatCount(p.sent), total: formatCount(p.sent + p.remaining) })}
      >
        <span className="seg-completed" style={{ width: `${okPct}%` }} />
        <span className="seg-failed" style={{ width: `${failedPct}%` }} />
        <span className="seg-unknown" style={{ width: `${unknownPct}%` }} />
      </div>
      <div className="batch-counters" role="group" aria-label={t('progress.label')}>
        <Counter label={t('progress.sent')} value={formatCount(p.sent)} />
        <Counter label={t('progress.accepted')} value={formatCount(p.accepted)} tone="ok" />
        <Counter label={t('progress.failed')} value={formatCount(p.failed)} tone={p.failed ? 'bad' : undefined} />
        <Counter label={t('progress.unknown')} value={formatCount(p.unknown)} tone={p.unknown ? 'warn' : undefined} />
        <Counter label={t('progress.remaining')} value={formatCount(p.remaining)} />
        {p.elsewhere ? <Counter label={t('progress.elsewhere')} value={formatCount(p.elsewhere)} /> : null}
        {p.moved ? <Counter label={t('progress.moved')} value={formatCount(p.moved)} /> : null}
        <Counter label={t('progress.rate')} value={<RateValue p={p} />} />
        <Counter label={t('progress.timeLeft')} value={secondsLeft !== null && !stopping && state === 'sending' ? t('progress.timeLeftValue', { duration: duration(secondsLeft) }) : '—'} />
      </div>
      <p role="status" className="muted">
        {waitSeconds > 0 && !stopping && wait ? <WaitNotice wait={wait} seconds={waitSeconds} /> : null}
        {stopping === 'pause' ? (inFlight !== undefined && inFlight > 0 ? t('progress.pausingInFlight', { count: inFlight, n: formatCount(inFlight) }) : t('progress.pausing')) : null}
        {stopping === 'cancel' ? t('progress.cancelling') : null}
        {/* A space before each: they follow a rate-limit wait's sentence in the same line. */}
        {onWorkspace && sendingHere && state === 'sending' && !stopping ? <> <span className="sending-here">{t('progress.sendingHereToo')}</span></> : null}
        {mayJoin && !joinRefused ? ` ${t('progress.joinHint')}` : null}
        {bySender && state === 'sending' && !stopping ? <> <span className="sending-by-sender">{t('progress.bySender')}</span></> : null}
        {state === 'paused' && !stopping ? t('progress.paused') : null}
        {(state === 'done' || state === 'cancelled') && processing > 0 ? t('progress.finished', { n: formatCount(processing) }) : null}
        {(state === 'done' || state === 'cancelled') && settled ? t('progress.settled') : null}
      </p>
      <div className="actions left">
        {state === 'sending' || stopping === 'pause' ? (
          <button
            type="button"
            className="secondary"
            disabled={stopping !== null}
            onClick={() => {
              setStopAsked('pause');
              void pause();
            }}
          >
            {t('progress.pause')}
          </button>
        ) : null}
        {mayJoin ? (
          <button
            type="button"
            className="primary"
            disabled={joining || joinRefused}
            aria-describedby={joinRefused ? 'batch-sandbox-refused' : undefined}
            onClick={() => {
              setJoining(true);
              void join().finally(() => setJoining(false));
            }}
          >
            {t('progress.join')}
          </button>
        ) : null}
        {state === 'paused' && !stopping ? (
          <button type="button" className="primary" disabled={!maySend || resumeRefused} aria-describedby={resumeRefused ? 'batch-sandbox-refused' : undefined} onClick={() => void resume()}>
            {t('progress.resume')}
          </button>
        ) : null}
        {state === 'interrupted' ? (
          <button type="button" className="primary" disabled={!maySend || resumeRefused} aria-describedby={resumeRefused ? 'batch-sandbox-refused' : undefined} onClick={() => void resume()}>
            {t('interrupted.resume')}
          </button>
        ) : null}
        {(state === 'sending' || state === 'paused' || state === 'interrupted') && p.remaining > 0 ? (
          <button type="button" className="secondary danger-text" disabled={stopping === 'cancel'} onClick={() => setCancelling(true)}>
            {t('progress.cancel')}
          </button>
        ) : null}
      </div>
      {state === 'paused' || state === 'interrupted' ? <SendRefusedNote /> : null}
      {resumeRefused || joinRefused ? (
        <p className="notice notice-warn sandbox-refused" role="note" id="batch-sandbox-refused">
          {elsewhereBy !== undefined ? t('refusal.sandboxBatchElsewhere', { login: elsewhereBy }) : t('refusal.joinLocalSandbox')}
        </p>
      ) : null}
      {cancelling ? <CancelRemaining remaining={p.remaining} onClose={() => setCancelling(false)} onCancel={() => setStopAsked(state === 'sending' ? 'cancel' : null)} /> : null}
    </section>
  );
}
