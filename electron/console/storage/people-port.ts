/**
 * People on a team workspace (issue 36 item 3), above the database's functions (workspace
 * migrations 45-46): who holds which login and role, the changes waiting for a second admin, and
 * the asks and decisions. An optional part of the storage port, like approvals: one desktop's
 * journal has no people. Passwords arrive here in clear from the handler and leave as SCRAM
 * verifiers (./postgres/scram-verifier.ts): no table or log line holds one.
 */
import type { AddPersonInput, AdminChange, PeopleErrorCode, PeopleView, PersonRole } from '../../../shared/api/people';
import type { NewTier } from './approvals-port';

/** A rule of people or admin changes said no: the code the screens translate, the field when one is wrong. */
export class PeopleRefusal extends Error {
  constructor(
    readonly code: PeopleErrorCode,
    message: string,
    readonly field: string | null = null,
  ) {
    super(message);
    this.name = 'PeopleRefusal';
  }
}

export interface PeoplePort {
  view(): Promise<PeopleView>;
  askAddPerson(input: AddPersonInput): Promise<AdminChange>;
  askResetPassword(login: string, password: string): Promise<AdminChange>;
  askDisableLogin(login: string): Promise<AdminChange>;
  askRole(login: string, role: PersonRole, member: boolean): Promise<AdminChange>;
  askPolicy(environment: 'sandbox' | 'live', currency: string, tiers: readonly NewTier[]): Promise<AdminChange>;
  /** Another admin, another person, applies the change now. */
  approveChange(id: number, remark?: string | null): Promise<AdminChange>;
  /** Another admin rejects it; the one who asked withdraws it. */
  rejectChange(id: number, remark?: string | null): Promise<AdminChange>;
}
