/**
 * The console's one contract: every operation the renderer can ask of the main process, with the
 * zod schema of its input and the type of its result. Electron IPC and the browser host are two
 * transports of this map; handlers do not know which one called them.
 */
import { z } from 'zod';
import { ENVIRONMENTS, HEADER_WORD_PATTERN, KEY_TYPES, TRANSACTION_STATUSES } from '../contract/codes';
import { transactionRequestSchema } from '../contract/schemas';
import { scenarioInputSchema, type Scenario } from '../contract/scenarios';
import { isTimestamp } from '../contract/timestamps';
import type { Result } from './result';
import type { PushEvent, PushEvents } from './push-events';

/** The file formats of a sandbox recording (the engine's `GET /_sandbox/recordings?format=`). */
export const RECORDING_FORMATS = ['har', 'jsonl'] as const;
import { LANGUAGES, LANGUAGE_PREFERENCES, type LanguagePreference } from '../i18n/types';
import type {
  JournalTransaction,
  LedgerEntry,
  PayoutQuote,
  Profile,
  SandboxStatus,
  SandboxWebhookChaos,
  SearchPage,
  TransactionDetail,
  TransactionKind,
  WebhookDelivery,
} from './types';
import type { SandboxOutcome } from '../contract/outcomes';
import {
  BATCH_MAX_CONCURRENCY,
  type BatchConfirmation,
  type BatchDetail,
  type BatchPreview,
  type BatchRowsPage,
  type BatchSummary,
  BATCH_ROW_FILTERS,
  BATCH_ROWS_PAGE_MAX,
  type RehearsalSummary,
  type RenewedIds,
} from './batch';
import type { InspectedPage } from '../contract/inspector';
import type { SignedExample } from './types';
import { RECONCILE_CHANNEL_INPUTS, type ReconcileChannelResults } from './reconcile';
import { overviewInputSchema, type OverviewResult } from './overview';
import { type CHANNEL_NAMES, THEME_PREFERENCES, type ThemePreference } from './plain';
import { sandboxChaosSchema } from './sandbox-chaos';
import { sandboxVariantsSchema, type SandboxVariants } from './sandbox-variants';
import { APPROVAL_CHANNEL_INPUTS, type ApprovalChannelResults, type ApprovalState } from './approvals';
import { AUDIT_CHANNEL_INPUTS, type AuditChannelResults } from './audit';
import { PEOPLE_CHANNEL_INPUTS, type PeopleChannelResults } from './people';
import { WORKSPACE_CHANNEL_INPUTS, type WorkspaceChannelResults } from './workspace';
import { TEAM_PROFILE_CHANNEL_INPUTS, type TeamProfileChannelResults } from './team-profiles';
import { TEAM_SANDBOX_CHANNEL_INPUTS, type TeamSandboxChannelResults } from './team-sandbox';

const id = z.string().min(1).max(200);
const none = z.strictObject({});

export const profileInputSchema = z.strictObject({
  /** Absent to create. */
  id: id.optional(),
  name: z.string().trim().min(1, 'is required').max(80),
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(500),
  environment: z.enum(ENVIRONMENTS),
  headerWord: z.string().regex(HEADER_WORD_PATTERN, 'letters and digits only, 1 to 32'),
  paymentPublicKey: z.string().trim().max(200),
  payoutPublicKey: z.string().trim().max(200),
});
export type ProfileInput = z.infer<typeof profileInputSchema>;

export const searchQuerySchema = z.strictObject({
  /** A transaction id exactly, or any part of an external id, phone number or name (every word; electron/console/journal/text-search.ts). */
  text: z.string().max(200).optional(),
  transactionId: z.string().max(200).optional(),
  externalId: z.string().max(200).optional(),
  phoneNumber: z.string().max(32).optional(),
  status: z.enum(TRANSACTION_STATUSES).optional(),
  state: z.enum(['pending', 'outcome_unknown', 'rejected', 'known']).optional(),
  kind: z.enum(['payment', 'payout']).optional(),
  profileId: id.optional(),
  /** ISO 8601 bounds on the journal entry's creation time. */
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  minAmount: z.number().int().nonnegative().optional(),
  maxAmount: z.number().int().nonnegative().optional(),
});
export type SearchQuery = z.infer<typeof searchQuerySchema>;

const batchId = z.string().min(1).max(100);
/** A row number as a spreadsheet shows it: row 1 is the header. */
/** The words of the engine's own `limit` refusal (GET /_sandbox/deliveries), for the same rule over IPC. */
const PAGE_LIMIT = 'must be a whole number from 1 to 500';
const rowNumber = z.number().int().min(2, 'row 1 is the header').max(1_000_000);
const cell = z.string().max(1000, 'must be at most 1000 characters');
/** The sign helper's form (and the detail view's "reproduce"): what to sign for the local sandbox. */
export const signRequestSchema = z.strictObject({
  method: z.enum(['GET', 'POST']),
  path: z.string().trim().max(500).regex(/^\/[^\s?#]*$/, 'starts with / and has no spaces, ? or #'),
  /** The raw query string without `?`, exactly as it will be sent. */
  query: z.string().max(2000).regex(/^[^\s#]*$/, 'no spaces or #').default(''),
  /** The exact body bytes (POST). */
  body: z.string().max(64 * 1024).default(''),
  /** Omitted: the type the path needs (payment for /v1/payments…, payout for /v1/payouts… and /v1/balance). */
  keyType: z.enum(KEY_TYPES).optional(),
  /** The language of the comments in the snippets. */
  language: z.enum(LANGUAGES).default('en'),
});
export type SignRequestInput = z.input<typeof signRequestSchema>;

const secretRef = z.strictObject({ profileId: id, keyType: z.enum(KEY_TYPES) });

/** A start notice from main: a code, its parameters, and the English sentence for logs. */
export interface StartNotice {
  code: string;
  message: string;
  params?: Record<string, string | number>;
}

// The theme choices live in plain.ts (no zod) for the renderer's first chunk.
export { THEME_PREFERENCES, type ThemePreference };

/** Channel name -> input schema. Results are typed in `ChannelResults`. */
export const CHANNEL_INPUTS = {
  'app:info': none,
  /** The user's preferences kept in main's settings file: one or both of language and theme. */
  'preferences:set': z
    .strictObject({ language: z.enum(LANGUAGE_PREFERENCES).optional(), theme: z.enum(THEME_PREFERENCES).optional() })
    .refine((input) => input.language !== undefined || input.theme !== undefined, { message: 'needs a language or a theme' }),

  'profiles:list': none,
  'profiles:save': profileInputSchema,
  'profiles:delete': z.strictObject({ id }),
  'profiles:activate': z.strictObject({ id }),

  'secrets:set': secretRef.extend({ secret: z.string().min(8, 'looks too short for a secret key').max(500) }),
  'secrets:has': secretRef,
  'secrets:delete': secretRef,

  'methods:list': none,
  'balance:get': none,

  'payments:create': z.strictObject({ request: transactionRequestSchema }),
  /** The confirmation step: restates the payout and returns the token `payouts:initiate` needs. */
  'payouts:prepare': z.strictObject({
    request: transactionRequestSchema,
    /** Live profiles: the amount as the user typed it to confirm. */
    typedAmount: z.number().int().positive().optional(),
  }),
  'payouts:initiate': z.strictObject({ request: transactionRequestSchema, confirmationToken: z.string().min(1).max(200) }),

  'transactions:lookup': z.strictObject({
    id: z.string().trim().min(1, 'is required').max(200),
    by: z.enum(['transaction_id', 'external_id']),
    kind: z.enum(['payment', 'payout']),
  }),
  'transactions:get': z.strictObject({ journalId: id }),
  'transactions:verify': z.strictObject({ journalId: id }),
  /** For an outcome-unknown entry: asks the service by external id whether it exists. */
  'transactions:resolveUnknown': z.strictObject({ journalId: id }),
  /** Sends an outcome-unknown entry again with the same external id; only after resolveUnknown said it does not exist. */
  'transactions:resend': z.strictObject({ journalId: id }),
  'transactions:search': z.strictObject({
    query: searchQuerySchema,
    offset: z.number().int().nonnegative().max(10_000_000).default(0),
    limit: z.number().int().positive().max(500).default(100),
  }),
  /** `language`: the CSV's header line (values stay ids and codes). */
  'transactions:export': z.strictObject({ query: searchQuerySchema, language: z.enum(LANGUAGES).default('en') }),

  'sandbox:status': none,
  'sandbox:outcomes': none,
  'sandbox:wallet': none,
  'sandbox:topUp': z.strictObject({
    environment: z.enum(ENVIRONMENTS),
    amount: z.number().int().refine((n) => n !== 0, 'must not be 0'),
    reason: z.string().trim().min(1, 'is required').max(200),
  }),
  /** The latest `limit` deliveries (50 unless asked), newest first; `cursor` (a `nextCursor`) for the next, older page. */
  'sandbox:deliveries': z.strictObject({
    cursor: z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
    limit: z.number(PAGE_LIMIT).int(PAGE_LIMIT).min(1, PAGE_LIMIT).max(500, PAGE_LIMIT).optional(),
  }),
  'sandbox:redeliver': z.strictObject({ deliveryId: id }),
  'sandbox:setWebhookUrl': z.strictObject({ url: z.union([z.url({ protocol: /^https?$/ }).max(500), z.literal('')]) }),
  'sandbox:settle': z.strictObject({ transactionId: id }),
  'sandbox:advanceClock': z.strictObject({ seconds: z.number().int().positive().max(30 * 24 * 3600) }),
  'sandbox:resetClock': z.strictObject({}),
  'sandbox:setMaintenance': z.strictObject({ on: z.boolean() }),
  /** The engine's rate limit: requests a minute per key before it answers 429 (0: no limit). */
  'sandbox:setRateLimit': z.strictObject({
    perMinute: z.number({ error: 'must be a number' }).int('must be a whole number of requests per minute').min(0, 'must be 0 (no limit) or more').max(1_000_000, 'must be at most 1000000'),
  }),
  /** Webhook chaos for the built-in application: each behaviour's share of deliveries (0–1); at least one above 0. */
  'sandbox:setChaos': sandboxChaosSchema,
  'sandbox:clearChaos': z.strictObject({}),
  /** The local sandbox's service variants in force (the spec's silences answered the other way). */
  'sandbox:variants': none,
  /** Replaces the whole set ({ enabled: [] }: the default engine); starts reset-after-create's count again. */
  'sandbox:setVariants': sandboxVariantsSchema,
  /** A sandbox secret, only on the developer's own request (Reveal / Copy on the Sandbox screen). */
  'sandbox:revealSecret': z.strictObject({ which: z.enum(['webhookSecret', 'adminToken']) }),
  /** Scenarios per transaction (the control API's `/_sandbox/scenarios`), oldest first. */
  'sandbox:scenarios': none,
  'sandbox:addScenario': scenarioInputSchema,
  'sandbox:removeScenario': z.strictObject({ scenarioId: id }),
  /** The inspector's records and the webhook deliveries of a period, as a file (secrets redacted). */
  'sandbox:recording': z.strictObject({
    format: z.enum(RECORDING_FORMATS),
    from: z.string().refine((text) => isTimestamp(text), 'must be a timestamp').optional(),
    to: z.string().refine((text) => isTimestamp(text), 'must be a timestamp').optional(),
  }),

  // Bulk payouts from a CSV file (issue 10).
  'batches:template': z.strictObject({ language: z.enum(LANGUAGES) }),
  /** Parses (papaparse), validates every row with the API's schema, flags duplicates: a draft batch. */
  'batches:import': z.strictObject({
    fileName: z.string().trim().min(1, 'is required').max(255),
    text: z
      .string()
      .max(8 * 1024 * 1024, 'the file is larger than 8 MiB')
      .refine((text) => /[\r\n]/.test(text), 'must be a CSV file: a header line, then one line per payout'),
    /** For rows without a payment_method cell. */
    paymentMethod: z.string().trim().min(1).max(64).optional(),
  }),
  /** Draft only: replaces the given cells of one row (`meta.KEY` for metadata) and validates it again. */
  'batches:updateRow': z.strictObject({
    batchId,
    rowNumber,
    values: z.record(z.string().max(200), cell).refine((values) => Object.keys(values).length <= 60, 'too many cells'),
  }),
  /** Draft only: drops the given rows, or (`invalid: true`) every row with errors; one of the two. */
  'batches:dropRows': z
    .strictObject({ batchId, rowNumbers: z.array(rowNumber).min(1).max(10_000).optional(), invalid: z.literal(true).optional(), sent: z.literal(true).optional() })
    .refine((input) => [input.rowNumbers, input.invalid, input.sent].filter((given) => given !== undefined).length === 1, {
      message: 'needs one of rowNumbers, invalid: true or sent: true',
      path: ['rowNumbers'],
    }),
  'batches:invalidRows': z.strictObject({ batchId, language: z.enum(LANGUAGES) }),
  'batches:preview': z.strictObject({ batchId }),
  /** Runs the rows against the local sandbox engine (distinct external ids); never the profile's service. */
  'batches:rehearse': z.strictObject({ batchId }),
  /** The confirmation step: a single-use token bound to a hash of (profile, environment, all rows). */
  'batches:prepare': z.strictObject({
    batchId,
    /** Live profiles: the batch total (amount + known fees) as the user typed it. */
    typedTotal: z.number().int().positive().optional(),
    /** Required when the same rows were already sent in an earlier batch. */
    acceptDuplicateFile: z.boolean().optional(),
  }),
  'batches:start': z.strictObject({
    batchId,
    confirmationToken: z.string().min(1).max(200),
    concurrency: z.number().int().min(1).max(BATCH_MAX_CONCURRENCY).optional(),
  }),
  'batches:pause': z.strictObject({ batchId }),
  /** Paused or interrupted: looks unknown rows up by external id first, then sends the rest. */
  'batches:resume': z.strictObject({ batchId }),
  /** Stops sending: rows not yet sent stay not_sent. */
  'batches:cancel': z.strictObject({ batchId }),
  /** Team workspace: this desktop also sends a batch another desktop is sending (its rows claimed, never sent twice). */
  'batches:join': z.strictObject({ batchId }),
  'batches:get': z.strictObject({ batchId }),
  /** One page of a batch's rows in row order (the virtual table asks for the pages it shows). */
  'batches:rows': z.strictObject({
    batchId,
    filter: z.enum(BATCH_ROW_FILTERS).default('all'),
    offset: z.number().int().nonnegative().max(1_000_000).default(0),
    limit: z.number().int().positive().max(BATCH_ROWS_PAGE_MAX, `must be at most ${BATCH_ROWS_PAGE_MAX}`).default(100),
  }),
  'batches:list': none,
  /**
   * A new draft of the rows that were rejected or ended failed/cancelled: a refused row keeps its
   * external id; a failed transaction's row gets one derived from it (`<id>-r1`).
   */
  'batches:retryFailed': z.strictObject({ batchId }),
  /** A cancelled batch's rows never sent, as a new draft with their own external ids (its own confirmation). */
  'batches:sendRemaining': z.strictObject({ batchId }),
  'batches:report': z.strictObject({ batchId, language: z.enum(LANGUAGES) }),
  /**
   * Draft only: every valid row whose external id the journal holds as money (sent earlier) takes a
   * new one derived from it (`<id>-n1`), so it is paid again as a new payout once the draft is
   * confirmed; `dryRun` answers the new ids without writing them (the screen's dialog lists them).
   */
  'batches:renewSentIds': z.strictObject({ batchId, dryRun: z.literal(true).optional() }),
  /** The request inspector: newest first, `cursor` = the previous page's `nextCursor`. */
  'sandbox:requests': z.strictObject({
    status: z.string().regex(/^(?:[1-5]\d\d|[1-5]xx)$/, 'an HTTP status (401) or a class (4xx)').optional(),
    key: z.string().trim().min(1).max(200).optional(),
    cursor: z.string().regex(/^[1-9]\d{0,15}$/, 'the nextCursor of an earlier page').optional(),
    limit: z.number().int().min(1).max(500).default(100),
  }),
  /** Signs a request for the local sandbox with its fixture key: headers, canonical string, snippets. */
  'sandbox:signRequest': signRequestSchema,
  // Reconciliation of the merchant's records (issue 11): shared/api/reconcile.ts
  ...RECONCILE_CHANNEL_INPUTS,
  // Overview: the day's and the week's figures of the active profile, read from the journal.
  'overview:get': overviewInputSchema,
  // Approvals on a team workspace (issue 25): shared/api/approvals.ts
  ...APPROVAL_CHANNEL_INPUTS,
  // The audit log of a team workspace (issue 25): shared/api/audit.ts
  ...AUDIT_CHANNEL_INPUTS,
  // People, roles and the changes a second admin applies (issue 36): shared/api/people.ts
  ...PEOPLE_CHANNEL_INPUTS,
  // Where the console records: this desktop or a team workspace (issue 24): shared/api/workspace.ts
  ...WORKSPACE_CHANNEL_INPUTS,
  // Team profiles on a team workspace (issue 24): shared/api/team-profiles.ts
  ...TEAM_PROFILE_CHANNEL_INPUTS,
  ...TEAM_SANDBOX_CHANNEL_INPUTS,
} as const;

export type Channel = keyof typeof CHANNEL_INPUTS;
export const CHANNELS = Object.keys(CHANNEL_INPUTS) as Channel[];
/** plain.ts's zod-free list names exactly these channels: a channel added here and not there fails the typecheck. */
type ChannelNamesMatch = [Exclude<Channel, (typeof CHANNEL_NAMES)[number]>, Exclude<(typeof CHANNEL_NAMES)[number], Channel>] extends [never, never] ? true : false;
type Holds<T extends true> = T;
export type ChannelNamesChecked = Holds<ChannelNamesMatch>;

/** What the renderer passes (defaults may be omitted). */
export type ChannelInput<C extends Channel> = z.input<(typeof CHANNEL_INPUTS)[C]>;
/** What a handler receives after validation. */
export type ChannelParsedInput<C extends Channel> = z.output<(typeof CHANNEL_INPUTS)[C]>;

export interface ChannelResults extends ReconcileChannelResults, ApprovalChannelResults, AuditChannelResults, PeopleChannelResults, WorkspaceChannelResults, TeamProfileChannelResults, TeamSandboxChannelResults {
  'app:info': {
    version: string;
    transport: 'electron' | 'browser';
    activeProfileId: string;
    allowLive: boolean;
    /** The language the user chose in Settings (`system` = the operating system's). */
    language: LanguagePreference;
    /** The colour theme the user chose in Settings (`system` = the operating system's light or dark). */
    theme: ThemePreference;
    /**
     * Things the user should be told at start (e.g. a corrupt settings file kept aside): the window
     * shows the sentence of `code` (catalogue `console:notices`) with `params`; `message` is English, for logs.
     */
    notices?: StartNotice[];
  };
  /** The preferences that were set (what the input named). */
  'preferences:set': { language?: LanguagePreference; theme?: ThemePreference };
  'profiles:list': { profiles: Profile[]; activeId: string };
  'profiles:save': Profile;
  'profiles:delete': { deleted: true };
  'profiles:activate': Profile;
  'secrets:set': { stored: true };
  'secrets:has': { stored: boolean };
  'secrets:delete': { deleted: boolean };
  'methods:list': { methods: string[] };
  'balance:get': { available: boolean; balance: number | null; currency: string };
  'payments:create': JournalTransaction;
  'payouts:prepare': PayoutQuote;
  'payouts:initiate': JournalTransaction;
  'transactions:lookup':
    /** `source`: where it was found: the team's journal (a workspace reads it first) or the service (then recorded). */
    | { found: true; transaction: JournalTransaction; source: 'team_journal' | 'service' }
    /** `otherKind`: the id exists as the other kind (a payout looked up as a payment, or the reverse). */
    /**
     * `approval`: on a workspace, a request for this external id (a payout's, or a batch row's) that
     * was never sent: the service cannot know it yet, and the screen says why (awaiting approval).
     */
    | { found: false; environment: string; profileName: string; otherKind?: TransactionKind; approval?: { id: number; state: ApprovalState; subject: 'payout' | 'batch' } };
  'transactions:get': TransactionDetail;
  'transactions:verify': { message: string; transaction: JournalTransaction };
  'transactions:resolveUnknown': { exists: true; transaction: JournalTransaction } | { exists: false; transaction: JournalTransaction };
  'transactions:resend': JournalTransaction;
  'transactions:search': SearchPage;
  'transactions:export': { filename: string; csv: string; rows: number };
  'sandbox:status': SandboxStatus;
  'sandbox:outcomes': { outcomes: readonly SandboxOutcome[] };
  'sandbox:wallet': { balances: { environment: string; balance: number; currency: string }[]; ledger: LedgerEntry[] };
  'sandbox:topUp': { balance: number };
  'sandbox:deliveries': { deliveries: WebhookDelivery[]; nextCursor: string | null };
  'sandbox:redeliver': { queued: true };
  'sandbox:setWebhookUrl': { url: string | null };
  'sandbox:settle': { status: string };
  'sandbox:advanceClock': { clockOffsetSeconds: number };
  /** `removedSeconds`: how far ahead the clock was (0: it already read real time). */
  'sandbox:resetClock': { clockOffsetSeconds: number; removedSeconds: number };
  'sandbox:setMaintenance': { maintenance: boolean };
  'sandbox:setRateLimit': { rateLimitPerKeyPerMinute: number };
  'sandbox:setChaos': { chaos: SandboxWebhookChaos };
  'sandbox:clearChaos': { chaos: null };
  'sandbox:variants': SandboxVariants;
  'sandbox:setVariants': SandboxVariants;
  'sandbox:revealSecret': { value: string };
  'sandbox:scenarios': { scenarios: Scenario[] };
  'sandbox:addScenario': Scenario;
  'sandbox:removeScenario': { removed: true };
  'sandbox:recording': { filename: string; contentType: string; text: string; requests: number; deliveries: number };
  'batches:template': { filename: string; csv: string };
  'batches:import': BatchDetail;
  'batches:updateRow': BatchDetail;
  'batches:dropRows': BatchDetail;
  'batches:invalidRows': { filename: string; csv: string; rows: number };
  'batches:preview': BatchPreview;
  'batches:rehearse': RehearsalSummary;
  'batches:prepare': BatchConfirmation;
  'batches:start': BatchSummary;
  'batches:pause': BatchSummary;
  'batches:resume': BatchSummary;
  'batches:cancel': BatchSummary;
  'batches:join': BatchDetail;
  'batches:get': BatchDetail;
  'batches:rows': BatchRowsPage;
  'batches:list': { batches: BatchSummary[] };
  'batches:retryFailed': BatchDetail;
  'batches:sendRemaining': BatchDetail;
  'batches:report': { filename: string; csv: string; rows: number };
  'batches:renewSentIds': RenewedIds;
  'sandbox:requests': InspectedPage;
  'sandbox:signRequest': SignedExample;
  // Overview
  'overview:get': OverviewResult;
}

/** The typed API the renderer sees (from the preload or the browser host client). */
export type PaydeskApi = {
  invoke<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<Result<ChannelResults[C]>>;
  on<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void): () => void;
};
