/**
 * People on a team workspace (issue 36 item 3): what the People screen asks of the main process.
 * A person holds one or more database logins; an admin asks a change to people, roles or the
 * approval policy and another admin, another person, applies it (workspace migrations 45-46;
 * docs/decisions/people-and-admin-four-eyes.md). Passwords go main-ward only: the main process
 * turns one into its SCRAM verifier before the workspace sees it, and no answer carries one.
 */
import { z } from 'zod';
import { ENVIRONMENTS } from '../contract/codes';
import { approvalTierInputSchema } from './approvals';

export const PERSON_ROLES = ['finance', 'support', 'admin'] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];

export const ADMIN_CHANGE_KINDS = ['policy', 'role', 'add_person', 'reset_password', 'disable_login'] as const;
export type AdminChangeKind = (typeof ADMIN_CHANGE_KINDS)[number];

export const PEOPLE_ERROR_CODES = ['PEOPLE_NOT_ADMIN', 'SECOND_ADMIN_NEEDED', 'PEOPLE_INVALID', 'CHANGE_NOT_WAITING', 'NOT_A_PERSON', 'PEOPLE_UNAVAILABLE'] as const;
export type PeopleErrorCode = (typeof PEOPLE_ERROR_CODES)[number];

export interface PersonLogin {
  login: string;
  /** null: a login made in psql, its own person until the workspace changes it. */
  personId: number | null;
  displayName: string;
  roles: PersonRole[];
  disabled: boolean;
}

export interface AdminChange {
  id: number;
  kind: AdminChangeKind;
  /** What is changed, never a password: login, role, displayName, member, environment, currency, tiers… */
  change: Record<string, unknown>;
  state: 'awaiting' | 'applied' | 'rejected' | 'withdrawn';
  requestedBy: string;
  requestedAt: string;
  decidedBy: string | null;
  /** Asked by this person (any of their logins): they may withdraw it, not approve it. */
  mine: boolean;
}

export interface PeopleView {
  people: PersonLogin[];
  /** Awaiting first, then the last decided ones. */
  changes: AdminChange[];
  /** Admins as people: with fewer than two, no change can be applied. */
  adminPeople: number;
  login: string;
}

/** A login as the workspace accepts it (the database checks the same pattern). */
export const loginSchema = z.string().regex(/^[a-z][a-z0-9_]{1,62}$/, 'login');
/** At least 12 characters: a workspace password guards money. */
export const passwordSchema = z.string().min(12, 'password').max(200, 'password');
const changeId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const remark = z.string().trim().max(500);

export const addPersonSchema = z.strictObject({
  login: loginSchema,
  role: z.enum(PERSON_ROLES),
  displayName: z.string().trim().min(1, 'displayName').max(120, 'displayName'),
  password: passwordSchema,
});
export type AddPersonInput = z.output<typeof addPersonSchema>;


export const PEOPLE_CHANNEL_INPUTS = {
  'people:list': z.strictObject({}),
  /** Asks to add a person (a new login with its role and initial password). */
  'people:add': addPersonSchema,
  'people:resetPassword': z.strictObject({ login: loginSchema, password: passwordSchema }),
  'people:disable': z.strictObject({ login: loginSchema }),
  'people:setRole': z.strictObject({ login: loginSchema, role: z.enum(PERSON_ROLES), member: z.boolean() }),
  /** Asks to replace the tiers of one environment and currency. */
  'people:askPolicy': z.strictObject({
    environment: z.enum(ENVIRONMENTS),
    currency: z.string().regex(/^[A-Z]{3}$/, 'three capital letters'),
    tiers: z.array(approvalTierInputSchema).max(10).refine((tiers) => new Set(tiers.map((t) => t.minAmount)).size === tiers.length, 'one tier per amount'),
  }),
  'people:approveChange': z.strictObject({ id: changeId, remark: remark.optional() }),
  /** Another admin rejects; the one who asked withdraws. */
  'people:rejectChange': z.strictObject({ id: changeId, remark: remark.optional() }),
} as const;

export interface PeopleChannelResults {
  'people:list': PeopleView;
  'people:add': AdminChange;
  'people:resetPassword': AdminChange;
  'people:disable': AdminChange;
  'people:setRole': AdminChange;
  'people:askPolicy': AdminChange;
  'people:approveChange': AdminChange;
  'people:rejectChange': AdminChange;
}
