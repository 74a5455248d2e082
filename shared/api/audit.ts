/**
 * The audit log of a team workspace (issue 25 item 5): what the Audit screen asks of the main
 * process. The log itself is the workspace database's (migration 20: append-only, written by the
 * database and by the desktops' few hooks); a single desktop (the SQLite journal) has none.
 */
import { z } from 'zod';
import { LANGUAGES } from '../i18n/types';

/** Every action the log records (migration 20's CHECK, 42's two moves of a desktop, 48's team sender). */
export const AUDIT_ACTIONS = [
  'sign_in',
  'import',
  'confirm',
  'send',
  'pause',
  'cancel',
  'request_approval',
  'approve',
  'reject',
  'withdraw',
  'void_approval',
  'policy_change',
  'role_change',
  'leave_workspace',
  'join_workspace',
  // Migrations 45-46: people, and the changes one admin asks and another applies.
  'person_change',
  'change_request',
  'change_approve',
  'change_reject',
  'change_withdraw',
  // Migration 48, the team sender (docs/team-sender.md).
  'keys_holder_change',
  'send_ask',
  'send_ask_answered',
  'sender_start',
  'sender_stop',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  id: number;
  /** ISO 8601. */
  at: string;
  /** The database login that acted (its `session_user`). */
  actor: string;
  action: AuditAction;
  subject: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  remark: string | null;
}

/** One jsonb side of a change as short text: `key: value` pairs, in the order the database gave them. */
export function changeSummary(side: Record<string, unknown> | null): string {
  if (!side) return '';
  return Object.entries(side)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

const isoMoment = z.string().datetime({ offset: true, message: 'an ISO 8601 moment' });

export const auditFilterSchema = z
  .strictObject({
    /** The login that acted, exactly. */
    actor: z.string().trim().min(1).max(200).optional(),
    action: z.enum(AUDIT_ACTIONS).optional(),
    /** From this moment (inclusive)… */
    from: isoMoment.optional(),
    /** …to this one (exclusive). */
    to: isoMoment.optional(),
    /** Text inside the subject (a batch id, an external id, a login), any case. */
    subject: z.string().trim().min(1).max(200).optional(),
  })
  .refine((f) => !f.from || !f.to || Date.parse(f.from) < Date.parse(f.to), { message: 'from must be before to', path: ['to'] });
export type AuditFilter = z.output<typeof auditFilterSchema>;

export const AUDIT_CHANNEL_INPUTS = {
  /** A page of the log, newest first; `before` is the `nextBefore` of the page above. */
  'audit:list': z.strictObject({
    filter: auditFilterSchema.default({}),
    before: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
    limit: z.number().int().min(1).max(500).default(100),
  }),
  /** Every line the filter keeps, as a CSV file (the one CSV writer, formula-guarded). */
  'audit:export': z.strictObject({ filter: auditFilterSchema.default({}), language: z.enum(LANGUAGES).default('en') }),
} as const;

export interface AuditChannelResults {
  /** `nextBefore` null: this is the last page. */
  'audit:list': { entries: AuditEntry[]; nextBefore: number | null };
  'audit:export': { filename: string; csv: string; rows: number };
}
