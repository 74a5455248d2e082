/**
 * Domain types the console's main process and renderer exchange (not the HTTP API's: those are
 * in ../contract).
 */
import type { Environment, KeyType, ServiceStatus } from '../contract/codes';
import type { ServiceFailedCode, ServiceTransaction } from '../contract/reading';
import type { FieldErrors } from '../contract/schemas';
import type { DeliveryChaos } from '../contract/scenarios';
import type { AdoptedDifference } from './adopted';
import type { FailureReason } from './refusals';
import type { ApprovalNeed, ApprovalOutcome } from './approval-states';

export type TransactionKind = 'payment' | 'payout';

/** The id of the built-in profile served by the in-process local sandbox engine. */
export const LOCAL_SANDBOX_PROFILE_ID = 'local-sandbox';

/** A saved connection: which service, which environment, which public keys. */
export interface Profile {
  id: string;
  name: string;
  baseUrl: string;
  environment: Environment;
  headerWord: string;
  paymentPublicKey: string;
  payoutPublicKey: string;
  /** The built-in "Local sandbox" profile (served by the in-process engine; cannot be deleted). */
  builtIn: boolean;
  /**
   * On a team workspace only (absent on this desktop's own journal): `team`, a profile the
   * workspace keeps (every desktop lists it, each with its own keys); `desktop`, this desktop's own
   * ("this desktop only": colleagues cannot follow its entries up; docs/decisions/team-profiles.md).
   */
  scope?: 'team' | 'desktop';
  /**
   * A team profile whose keys are with the team sender (docs/team-sender.md): the sender sends for
   * it; this desktop never holds, asks for or shows a secret key of it. Absent otherwise.
   */
  keysWithSender?: true;
  /** Derived from the keychain on every read, never saved. */
  hasPaymentSecret: boolean;
  hasPayoutSecret: boolean;
}

/**
 * The console's own state of a transaction it created, looked up or verified.
 * - `pending`: the request is written, the answer not yet in;
 * - `outcome_unknown`: the POST may have reached the server but no answer came;
 * - `rejected`: the API refused it (an error envelope), nothing was created;
 * - `known`: the service has it; `status` is the latest status seen.
 */
export type JournalState = 'pending' | 'outcome_unknown' | 'rejected' | 'known';

export interface JournalTransaction {
  id: string;
  profileId: string;
  profileName: string;
  environment: Environment;
  kind: TransactionKind;
  state: JournalState;
  transactionId: string | null;
  externalId: string | null;
  /** As the service said it: one of the spec's five, or a status it does not list (shown as itself, never final). */
  status: ServiceStatus | null;
  failedCode: ServiceFailedCode | null;
  amount: number;
  currency: string;
  fee: number | null;
  netAmount: number | null;
  phoneNumber: string;
  paymentMethod: string;
  customer: { first_name: string; last_name: string; email: string };
  description: string | null;
  metadata: Record<string, unknown> | null;
  /** The last error the API answered for this entry (state `rejected`), if any. */
  lastError: { code: string; message: string; httpStatus: number | null } | null;
  /** The latest transaction object the service returned. */
  transaction: ServiceTransaction | null;
  /** ISO 8601 times of the journal entry itself. */
  createdAt: string;
  updatedAt: string;
  /** Present when the payout was a row of a bulk batch (issue 10). */
  batch?: { batchId: string; rowNumber: number };
  /**
   * The service refused this POST because its external id already existed: the entry adopted
   * the existing transaction ("already sent earlier"); it is never sent under a new id.
   */
  alreadySent?: true;
  /** Adopted, and the service's transaction is not what this request asked (another recipient or amount). */
  adoptedDiffers?: AdoptedDifference;
  /**
   * Accepted (not adopted), and the service's answer is not what was sent (another recipient,
   * amount or currency): the service's figures are the entry's; said, never "fixed" by sending
   * again (docs/decisions/tolerant-reader.md).
   */
  answerDiffers?: AdoptedDifference;
  /** The external id of the failed payout this one retries (its own is derived: `<id>-r1`). */
  retryOf?: string;
  /**
   * This entry was refused (`rejected`) and a later entry with the same external id created the
   * payout: that entry (History shows "refused, paid later" and links to it).
   */
  paidLater?: { journalId: string; status: ServiceStatus | null };
}

/** The timeline code of an initiate refused because its external id already existed (then looked up and adopted). */
export const ALREADY_EXISTS_CODE = 'ALREADY_EXISTS';

export type TimelineEventType =
  | 'request_sent'
  | 'response'
  | 'api_error'
  | 'transport_failure'
  | 'status_seen'
  | 'verify_result'
  /** The local sandbox said the status changed; the console read the transaction again. */
  | 'sandbox_status';

export interface TimelineEvent {
  id: number;
  journalId: string;
  type: TimelineEventType;
  /** ISO 8601 time the event happened (console clock). */
  at: string;
  status: ServiceStatus | null;
  httpStatus: number | null;
  code: string | null;
  message: string | null;
  /** For transport failures: whether the request may have reached the server. */
  outcome: 'not-sent' | 'unknown' | null;
}

export interface TransactionDetail {
  transaction: JournalTransaction;
  /** Newest first. */
  timeline: TimelineEvent[];
}

export interface SearchPage {
  rows: JournalTransaction[];
  total: number;
  offset: number;
  limit: number;
}

/** What the confirmation step restates before a payout is sent. */
export interface PayoutQuote {
  profileId: string;
  profileName: string;
  environment: Environment;
  recipient: { phoneNumber: string; name: string };
  amount: number;
  currency: string;
  /** Null where the service does not tell the fee in advance. */
  fee: number | null;
  total: number | null;
  /** Null where the profile's service has no balance endpoint, or where the team sender reads it (`bySender`). */
  balance: number | null;
  /** The team sender sends this payout (it holds the profile's keys): this desktop asks it. */
  bySender?: true;
  /** Pass this to `payouts:initiate`: it binds the confirmation to this exact request. */
  confirmationToken: string;
  expiresAt: string;
  /**
   * On a team workspace whose policy covers it: what sending needs first (the confirmation says
   * "needs approval" and offers to ask, instead of a refusal after Send). Absent or null: nothing.
   */
  approval?: ApprovalNeed | null;
}

export interface SandboxKeys {
  environment: Environment;
  type: KeyType;
  publicKey: string;
  /** The local engine's seeded secret: a documented fixture of the loopback sandbox only. */
  secretKey: string;
}

export interface SandboxStatus {
  running: boolean;
  url: string | null;
  keys: SandboxKeys[];
  maintenance: boolean;
  settleMs: number;
  webhookUrl: string | null;
  clockOffsetSeconds: number;
  error: string | null;
  /** The engine's control API (`…/_sandbox`, Bearer admin token) and OpenAPI document; null when not running. */
  controlUrl?: string | null;
  openApiUrl?: string | null;
  /** Requests a minute per key before the engine answers 429; 0: no limit. */
  rateLimitPerKeyPerMinute?: number;
  /** The built-in application's webhook chaos; null: off. */
  chaos?: SandboxWebhookChaos | null;
}

/** Webhook chaos as the engine holds it (its control API's `webhook-chaos`): each behaviour's rate (0–1), or null. */
export interface SandboxWebhookChaos {
  seed: number;
  /** Deliveries that have drawn from it since it was set. */
  draws: number;
  drop: { rate?: number; count?: number } | null;
  late: { rate?: number; count?: number; seconds: number } | null;
  duplicate: { rate?: number; count?: number } | null;
  out_of_order: { rate?: number; count?: number; hold_seconds: number } | null;
}

export interface WebhookAttempt {
  at: string;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookDelivery {
  id: string;
  eventType: string;
  transactionId: string;
  url: string;
  state: 'pending' | 'delivered' | 'failed' | 'stopped';
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: WebhookAttempt[];
  /** What webhook chaos or the transaction's scenario did to it (dropped, late...): why it failed or waits. */
  chaos?: DeliveryChaos[];
}

export interface LedgerEntry {
  id: number;
  at: string;
  amount: number;
  reason: string;
  transactionId: string | null;
}

export interface ApiFailure {
  code: string;
  message: string;
  fields?: FieldErrors;
  /** For `OUTCOME_UNKNOWN`, the journal entry to follow up. */
  journalId?: string;
  /** Why, when the code alone does not say it (a batch action refused: see BATCH_REFUSALS). */
  reason?: FailureReason;
  /** For `APPROVAL_REQUIRED`: what sending needs first, and the request already open for it (shared/api/approvals.ts). */
  approval?: ApprovalNeed;
  /** For a decision that did not happen (`APPROVAL_NOT_WAITING`, `APPROVAL_NOT_RECORDED`): the request as read again. */
  decision?: ApprovalOutcome;
  /** For `TEAM_KEYS_MISSING` and `PROFILE_DESKTOP_ONLY`: the profile, so the screen can offer to add its keys. */
  profileId?: string;
}

/**
 * A request signed for the local sandbox with its fixture key (the sign helper, and "reproduce"
 * in the request inspector). Only the loopback engine's documented fixture secret is ever used.
 */
export interface SignedExample {
  url: string;
  method: 'GET' | 'POST';
  keyType: KeyType;
  publicKey: string;
  /** Engine time (seconds) the headers were signed at: valid for ±300 s. */
  timestamp: string;
  headers: { name: string; value: string }[];
  canonical: string;
  /** Ready to paste; each computes a fresh timestamp and signature when run. */
  snippets: { curl: string; node: string; php: string };
}
