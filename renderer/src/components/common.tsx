/** Small shared pieces: status badge, copy button, spinner, error notice, field wrapper. */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ApiFailure, JournalState, Profile } from '../../../shared/api';
// From types.ts, not shared/api: this is in the first chunk, zod is not (issue 28).
import { LOCAL_SANDBOX_PROFILE_ID } from '../../../shared/api/types';
import { isListedStatus, type ServiceStatus } from '../../../shared/contract/codes';
import { useTranslation } from 'react-i18next';
import { ERROR_MESSAGES, describeFailure, messageBeyond } from '../messages/errors';
import { translateFieldErrors } from '../messages/fields';
import { currentLanguage, t as translate } from '../i18n';
import { TeamKeysAction } from './TeamKeysAction';

/**
 * A transaction status in words (namespace `status`), e.g. "Completed" / "Réussie"; a status the
 * spec does not list is shown as the service said it, and said to be unlisted.
 */
export function statusLabel(status: ServiceStatus): string {
  return isListedStatus(status) ? translate(`status:transaction.${status}`) : translate('status:unlisted', { status });
}

/** The console's own state of a journal entry in words ("Outcome unknown" / "Issue inconnue"). */
export function journalStateLabel(state: JournalState | 'not_sent'): string {
  return translate(`status:journal.${state}`);
}

/**
 * The state an entry is shown in: a request refused before anything was created (a 429, or one
 * that never left: `NOT_SENT`) reads "Not sent", never "Rejected" (issue 23 item 3).
 */
export function shownState(entry: { state: JournalState; lastError: { code: string } | null }): JournalState | 'not_sent' {
  return entry.state === 'rejected' && entry.lastError?.code === 'NOT_SENT' ? 'not_sent' : entry.state;
}

/** A profile's name as shown: the built-in local sandbox profile's name is in the console's language. */
export function profileName(profile: Pick<Profile, 'name' | 'builtIn'>): string {
  return profile.builtIn ? translate('components:localSandbox') : profile.name;
}

/** The same for a name stored with a record (journal entry, batch, reconciliation), by its profile id. */
export function storedProfileName(profileId: string, name: string): string {
  return profileId === LOCAL_SANDBOX_PROFILE_ID ? translate('components:localSandbox') : name;
}

/** The status as a badge; a journal entry the service does not know yet shows its own state. */
export function StatusBadge({ status, state }: { status: ServiceStatus | null; state: JournalState | 'not_sent' }) {
  const { t } = useTranslation('status');
  const label = status ? statusLabel(status) : journalStateLabel(state);
  // An unlisted status has a tone of its own: never the style of a journal state that shares its word (`pending`).
  const tone = status === null ? state : isListedStatus(status) ? status : 'unlisted';
  return (
    <span className={`badge badge-${tone}`} role="status" aria-label={t('label', { status: label })} data-status={tone}>
      {label}
    </span>
  );
}

export function Spinner({ label }: { label: string }) {
  return <span className="spinner" role="progressbar" aria-label={label} />;
}

export function CopyButton({ value, label }: { value: string; label: string }) {
  const { t } = useTranslation(['common', 'components']);
  // A refused clipboard write says so: the user would otherwise paste whatever was copied before.
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  async function copy() {
    if (timer.current) clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
      timer.current = setTimeout(() => setState('idle'), 1500);
    } catch {
      setState('failed');
    }
  }
  return (
    <>
      <button type="button" className="copy" onClick={() => void copy()} aria-label={t('components:copyLabel', { label })}>
        {state === 'copied' ? t('actions.copied') : t('actions.copy')}
      </button>
      {state === 'failed' ? (
        <span className="copy-failed" role="alert">
          {t('components:copyFailed')}
        </span>
      ) : null}
    </>
  );
}

/** Codes whose "what to do next" points at fields marked on the screen. */
const MARKS_FIELDS: ReadonlySet<string> = new Set(['VALIDATION_ERROR', 'INVALID_INPUT']);

/**
 * An API failure in words, with what to do next and the code for support. `next` replaces the
 * code's own "what to do" where the screen knows better: a field error the screen shows as a list,
 * not as marked fields, must not say "Correct the fields marked below".
 */
export function ErrorNotice({ failure, title, next }: { failure: ApiFailure; title?: string; next?: string | undefined }) {
  const { t } = useTranslation('components');
  const human = describeFailure(failure);
  // "Correct the fields marked below" only when the failure names a field to mark.
  const unmarked = MARKS_FIELDS.has(failure.code) && Object.keys(failure.fields ?? {}).length === 0;
  const whatNext = next ?? (unmarked ? translate('common:nothingMarked') : human.next);
  // The service's and main's own message is English: shown to English readers, and to everyone when
  // the code has no sentence of its own (then it is all there is to read).
  const known = Object.hasOwn(ERROR_MESSAGES, failure.code);
  // A refusal with its reason says it in the reader's language already (main's English repeats it).
  const english = currentLanguage() === 'en';
  const details = !failure.reason && (english || !known) ? messageBeyond(failure.message, [title, human.title, whatNext]) : null;
  return (
    <div className="notice notice-error" role="alert">
      <strong>{title ?? human.title}</strong>
      {title ? <p>{human.title}</p> : null}
      <p>{whatNext}</p>
      <TeamKeysAction failure={failure} />
      {details ? <OriginalWords words={details} label={english ? t('details') : t('originalWords')} /> : null}
      <p className="code">{t('code', { code: failure.code })}</p>
    </div>
  );
}

/**
 * The service's (or main's) own English words under our sentence: labelled, quoted and marked
 * English, so a French reader sees at once they are quoted as said, not the console speaking.
 */
export function OriginalWords({ words, label }: { words: string; label?: string }) {
  const { t } = useTranslation('components');
  const english = currentLanguage() === 'en';
  return (
    <p className="muted original-words">
      {label ?? (english ? t('details') : t('originalWords'))} {english ? <span>{words}</span> : <q lang="en">{words}</q>}
    </p>
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
          {translateFieldErrors(errors).join('; ')}
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
