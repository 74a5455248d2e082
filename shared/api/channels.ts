/**
 * The console's one contract: every operation the renderer can ask of the main process, with the
 * zod schema of its input and the type of its result. Electron IPC and the browser host are two
 * transports of this map; handlers do not know which one called them.
 */
import { z } from 'zod';
import { ENVIRONMENTS, HEADER_WORD_PATTERN, KEY_TYPES, TRANSACTION_STATUSES } from '../contract/codes';
import { transactionRequestSchema } from '../contract/schemas';
import { LANGUAGE_PREFERENCES, type LanguagePreference } from '../i18n/types';
import type {
  JournalTransaction,
  LedgerEntry,
  PayoutQuote,
  Profile,
  SandboxStatus,
  SearchPage,
  TransactionDetail,
  WebhookDelivery,
  ApiFailure,
} from './types';
import type { SandboxOutcome } from '../contract/outcomes';
import { overviewInputSchema, type OverviewResult } from './overview';

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
  /** Matches transaction id, external id or phone number exactly, or a customer name by prefix. */
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

const secretRef = z.strictObject({ profileId: id, keyType: z.enum(KEY_TYPES) });

/** Channel name -> input schema. Results are typed in `ChannelResults`. */
export const CHANNEL_INPUTS = {
  'app:info': none,
  /** The user's preferences kept in main's settings file (the language for now). */
  'preferences:set': z.strictObject({ language: z.enum(LANGUAGE_PREFERENCES) }),

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
  'transactions:export': z.strictObject({ query: searchQuerySchema }),

  'sandbox:status': none,
  'sandbox:outcomes': none,
  'sandbox:wallet': none,
  'sandbox:topUp': z.strictObject({
    environment: z.enum(ENVIRONMENTS),
    amount: z.number().int().refine((n) => n !== 0, 'must not be 0'),
    reason: z.string().trim().min(1, 'is required').max(200),
  }),
  'sandbox:deliveries': none,
  'sandbox:redeliver': z.strictObject({ deliveryId: id }),
  'sandbox:setWebhookUrl': z.strictObject({ url: z.union([z.url({ protocol: /^https?$/ }).max(500), z.literal('')]) }),
  'sandbox:settle': z.strictObject({ transactionId: id }),
  'sandbox:advanceClock': z.strictObject({ seconds: z.number().int().positive().max(30 * 24 * 3600) }),
  'sandbox:setMaintenance': z.strictObject({ on: z.boolean() }),

  // Overview: the day's and the week's figures of the active profile, read from the journal.
  'overview:get': overviewInputSchema,
} as const;

export type Channel = keyof typeof CHANNEL_INPUTS;
export const CHANNELS = Object.keys(CHANNEL_INPUTS) as Channel[];

/** What the renderer passes (defaults may be omitted). */
export type ChannelInput<C extends Channel> = z.input<(typeof CHANNEL_INPUTS)[C]>;
/** What a handler receives after validation. */
export type ChannelParsedInput<C extends Channel> = z.output<(typeof CHANNEL_INPUTS)[C]>;

export interface ChannelResults {
  'app:info': {
    version: string;
    transport: 'electron' | 'browser';
    activeProfileId: string;
    allowLive: boolean;
    /** The language the user chose in Settings (`system` = the operating system's). */
    language: LanguagePreference;
    /** Things the user should be told at start (e.g. a corrupt settings file kept aside). */
    notices?: { code: string; message: string }[];
  };
  'preferences:set': { language: LanguagePreference };
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
  'transactions:lookup': { found: true; transaction: JournalTransaction } | { found: false; environment: string; profileName: string };
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
  'sandbox:deliveries': { deliveries: WebhookDelivery[] };
  'sandbox:redeliver': { queued: true };
  'sandbox:setWebhookUrl': { url: string | null };
  'sandbox:settle': { status: string };
  'sandbox:advanceClock': { clockOffsetSeconds: number };
  'sandbox:setMaintenance': { maintenance: boolean };
  // Overview
  'overview:get': OverviewResult;
}

/** Every handler answers with this; nothing is thrown across a transport. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiFailure };

/**
 * Console-side error codes (besides the API's own codes in ERROR_CODES):
 * - INVALID_INPUT: the handler's input failed its schema (fields has the details);
 * - OUTCOME_UNKNOWN: a POST may have reached the server, no answer (journalId to follow up);
 * - NOT_SENT: the request could not be sent (connection refused, DNS...);
 * - BAD_RESPONSE: the server answered something that is not an envelope;
 * - NO_KEYCHAIN: no OS keychain available (message says what to install or unlock);
 * - SECRET_MISSING: the profile's secret key is not in the keychain;
 * - CONFIRMATION_REQUIRED: a live payout without a valid confirmation token;
 * - LIVE_REFUSED: a live profile on a browser host started without --allow-live;
 * - NOT_FOUND: no such profile / journal entry;
 * - CONFLICT: the operation does not fit the entry's state (e.g. resend before resolveUnknown);
 * - SANDBOX_UNAVAILABLE: a sandbox operation on a profile that is not the local sandbox;
 * - INTERNAL: an unexpected failure (logged in main without secrets).
 */
export const CONSOLE_ERROR_CODES = [
  'INVALID_INPUT',
  'OUTCOME_UNKNOWN',
  'NOT_SENT',
  'BAD_RESPONSE',
  'NO_KEYCHAIN',
  'SECRET_MISSING',
  'CONFIRMATION_REQUIRED',
  'LIVE_REFUSED',
  'NOT_FOUND',
  'CONFLICT',
  'SANDBOX_UNAVAILABLE',
  'INTERNAL',
] as const;
export type ConsoleErrorCode = (typeof CONSOLE_ERROR_CODES)[number];

/** Push events from main to the renderer (no IPC event object is ever passed). */
export interface PushEvents {
  /** A journal entry changed (status, timeline): the store fetches it again. */
  'transaction:changed': { journalId: string; status: string | null; state: string };
  /** Watching a transaction after initiate: progress for the UI. */
  'watch:progress': { journalId: string; attempt: number; status: string | null; done: boolean };
  'profiles:changed': { activeId: string };
  /** Something in the local sandbox changed (status change, delivery attempt, wallet). */
  'sandbox:event': { kind: 'status' | 'delivery' | 'wallet' | 'engine'; transactionId?: string; detail?: string };
}
export type PushEvent = keyof PushEvents;
export const PUSH_EVENTS: PushEvent[] = ['transaction:changed', 'watch:progress', 'profiles:changed', 'sandbox:event'];

/** The typed API the renderer sees (from the preload or the browser host client). */
export type PaydeskApi = {
  invoke<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<Result<ChannelResults[C]>>;
  on<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void): () => void;
};
