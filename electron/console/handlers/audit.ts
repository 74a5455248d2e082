/**
 * The audit:* channels (issue 25 item 5) over the storage port's audit log (../storage/audit-port.ts):
 * a page of it for the Audit screen, and its export through the one CSV writer (shared/csv/write.ts,
 * formula-guarded like History's and Reconcile's files). A single desktop has no log.
 */
import type { Channel } from '../../../shared/api';
import { changeSummary, type AuditEntry } from '../../../shared/api/audit';
import { writeCsv } from '../../../shared/csv';
import { english, french } from '../../../shared/i18n';
import type { Language } from '../../../shared/i18n/types';
import type { AuditPort } from '../storage/audit-port';
import { HandlerFailure, type Context, type HandlerImpls } from './context';

type AuditChannel = Extract<Channel, `audit:${string}`>;

/** More lines than this are refused with a clear error rather than cut silently: narrow the filters. */
export const AUDIT_EXPORT_MAX_ROWS = 100_000;

/** The file's header in the person's language (the screen's column words) and one line per entry. */
export function auditCsv(entries: readonly AuditEntry[], language: Language): string {
  const words = (language === 'fr' ? french : english).audit;
  const header = [words.column.at, words.column.actor, words.column.action, words.column.subject, words.column.before, words.column.after, words.column.remark];
  return writeCsv(
    header,
    entries.map((e) => [e.at, e.actor, e.action, e.subject, changeSummary(e.before), changeSummary(e.after), e.remark]),
    { delimiter: ',' },
  );
}

export function auditHandlers(context: Context): HandlerImpls<AuditChannel> {
  const { deps } = context;

  function port(): AuditPort {
    const audit = deps.storage.audit;
    if (!audit) throw new HandlerFailure('APPROVALS_UNAVAILABLE', 'The audit log exists on a team workspace only: this desktop keeps its own journal.');
    return audit;
  }

  return {
    async 'audit:list'({ filter, before, limit }) {
      const audit = port();
      // One more than asked tells whether an older page exists.
      const entries = await audit.page(filter, { before, limit: limit + 1 });
      const page = entries.slice(0, limit);
      return { entries: page, nextBefore: entries.length > limit ? page[page.length - 1]!.id : null };
    },
    async 'audit:export'({ filter, language }) {
      const audit = port();
      const entries = await audit.all(filter, AUDIT_EXPORT_MAX_ROWS + 1);
      if (entries.length > AUDIT_EXPORT_MAX_ROWS) {
        throw new HandlerFailure('INVALID_INPUT', `More than ${AUDIT_EXPORT_MAX_ROWS} lines match: narrow the filters (a shorter period, one person) and export again.`);
      }
      const stamp = new Date(deps.clock.now()).toISOString().slice(0, 19).replace(/[:T]/g, '-');
      return { filename: `paydesk-audit-${stamp}.csv`, csv: auditCsv(entries, language), rows: entries.length };
    },
  };
}
