/** Small shared pieces: status badge, copy button, spinner, error notice, field wrapper. */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ApiFailure, JournalState } from '../../../shared/api';
import type { TransactionStatus } from '../../../shared/contract';
import { describeFailure } from '../messages/errors';

const STATUS_LABELS: Record<TransactionStatus, string> = {
  initiated: 'Initiated',
  processing: 'Processing',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const STATE_LABELS: Record<JournalState, string> = {
  pending: 'Sending…',
  outcome_unknown: 'Outcome unknown',
  rejected: 'Rejected',
  known: 'Unknown status',
};

/** The status as a badge; a journal entry the service does not know yet shows its own state. */
export function StatusBadge({ status, state }: { status: TransactionStatus | null; state: JournalState }) {
  const label = status ? STATUS_LABELS[status] : STATE_LABELS[state];
  const tone = status ?? state;
  return (
    <span className={`badge badge-${tone}`} role="status" aria-label={`Status: ${label}`} data-status={tone}>
      {label}
    </span>
  );
}

export function Spinner({ label }: { label: string }) {
  return <span className="spinner" role="progressbar" aria-label={label} />;
}

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      timer.current = setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false);
    }
  }
  return (
    <button type="button" className="copy" onClick={() => void copy()} aria-label={`Copy ${label}`}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** An API failure in words, with what to do next and the code for support. */
export function ErrorNotice({ failure, title }: { failure: ApiFailure; title?: string }) {
  const human = describeFailure(failure);
  return (
    <div className="notice notice-error" role="alert">
      <strong>{title ?? human.title}</strong>
      {title ? <p>{human.title}</p> : null}
      <p>{human.next}</p>
      {failure.message && failure.message !== human.title ? <p className="muted">Details: {failure.message}</p> : null}
      <p className="code">Code {failure.code}</p>
    </div>
  );
}

export function Field({
  id,
  label,
  errors,
  hint,
  children,
}: {
  id: string;
  label: string;
  errors?: string[] | undefined;
  hint?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className={`field${errors?.length ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint ? <div className="hint" id={`${id}-hint`}>{hint}</div> : null}
      {errors?.length ? (
        <div className="field-error" id={`${id}-error`} role="alert">
          {errors.join('; ')}
        </div>
      ) : null}
    </div>
  );
}

/** aria props that tie an input to its error and hint. */
export function describedBy(id: string, errors: string[] | undefined, hint = false) {
  const ids = [errors?.length ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ');
  return { 'aria-invalid': errors?.length ? true : undefined, 'aria-describedby': ids || undefined } as const;
}

export function Loading({ label }: { label: string }) {
  return (
    <div className="loading">
      <Spinner label={label} /> <span>{label}</span>
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}
