/**
 * The seed: the applications, keys, wallets, methods and fees a fresh engine database starts with.
 *
 * A seed file is JSON validated by `seedSchema` (errors name the dotted path of every bad field);
 * `DEFAULT_SEED` is used when none is given and has the same keys on every start, so a developer
 * can keep them in `.env`. See the package's `seed.example.json` for a full example.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { scenarioInputSchema } from '../../../../shared/contract';

const KEY_CHARS = /^[A-Za-z0-9_]+$/;

const minorUnits = z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be 0 or more').max(Number.MAX_SAFE_INTEGER);

const feeRuleSchema = z.strictObject({
  /** Percentage part in basis points (150 = 1.5 %). */
  percentBps: z.number().int('must be a whole number of basis points').min(0).max(10_000),
  /** Fixed part in minor units. */
  fixed: minorUnits,
});

const keySchema = z
  .strictObject({
    environment: z.enum(['sandbox', 'live']),
    type: z.enum(['payment', 'payout']),
    publicKey: z.string().min(8).max(200).regex(KEY_CHARS, 'may contain only letters, digits and _'),
    secretKey: z.string().min(16, 'must be at least 16 characters').max(200).regex(KEY_CHARS, 'may contain only letters, digits and _'),
    active: z.boolean().default(true),
    /** Empty: any address may use the key. */
    ipWhitelist: z.array(z.string().refine((ip) => isIP(ip) !== 0, { message: 'must be an IPv4 or IPv6 address' })).default([]),
  })
  .superRefine((key, ctx) => {
    const prefix = `pk_${key.environment}_${key.type}_`;
    if (!key.publicKey.startsWith(prefix) || key.publicKey.length === prefix.length) {
      ctx.addIssue({ code: 'custom', path: ['publicKey'], message: `must look like ${prefix}<characters> for a ${key.environment} ${key.type} key` });
    }
  });

const appMethodSchema = z.strictObject({
  code: z.string().min(1),
  payments: z.boolean().default(true),
  payouts: z.boolean().default(true),
});

const applicationSchema = z.strictObject({
  id: z.string().min(1).max(64).regex(KEY_CHARS, 'may contain only letters, digits and _'),
  ref: z.uuid('must be a UUID').optional(),
  name: z.string().min(1).max(100),
  /** `inactive`: deactivated (APP_NOT_ACTIVE); `pending`: never activated (APPLICATION_NOT_ACTIVE). */
  status: z.enum(['active', 'inactive', 'pending']).default('active'),
  liveApproved: z.boolean().default(false),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like XAF').default('XAF'),
  webhookUrl: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).nullable().default(null),
  webhookSecret: z.string().regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be whsec_ followed by base64').nullable().default(null),
  keys: z.array(keySchema).min(1, 'must list at least one key pair'),
  wallets: z.strictObject({ sandbox: minorUnits.default(0), live: minorUnits.default(0) }).default({ sandbox: 0, live: 0 }),
  /** Methods enabled for this application; omitted: every method, for payments and payouts. */
  methods: z.array(appMethodSchema).optional(),
});

const methodSchema = z.strictObject({
  /** Canonical form, as responses show it; requests match it case-insensitively. */
  code: z.string().min(1).max(64).regex(/^[A-Za-z0-9_]+$/, 'may contain only letters, digits and _'),
  name: z.string().min(1).max(100),
  enabled: z.boolean().default(true),
  payments: z.boolean().default(true),
  payouts: z.boolean().default(true),
  environments: z.array(z.enum(['sandbox', 'live'])).min(1).default(['sandbox', 'live']),
  /** Phone prefixes payouts may go to (empty: any); others get PAYOUT_NOT_AVAILABLE. */
  payoutPrefixes: z.array(z.string().regex(/^\+\d{1,6}$/, 'must be + and 1 to 6 digits')).default([]),
});

export const seedSchema = z
  .strictObject({
    applications: z.array(applicationSchema).min(1, 'must list at least one application'),
    methods: z.array(methodSchema).min(1).optional(),
    fees: z
      .strictObject({ payment: feeRuleSchema, payout: feeRuleSchema })
      .default({ payment: { percentBps: 150, fixed: 0 }, payout: { percentBps: 100, fixed: 50 } }),
    /** Token for the loopback control API (issue 4); omitted: the engine makes one. */
    adminToken: z.string().min(16).max(200).optional(),
    /** Scenarios per transaction (shared/contract/scenarios.ts), as `POST /_sandbox/scenarios` takes them. */
    scenarios: z.array(scenarioInputSchema).max(10_000).default([]),
  })
  .superRefine((seed, ctx) => {
    const methods = seed.methods ?? DEFAULT_METHODS;
    const methodCodes = new Set<string>();
    methods.forEach((method, index) => {
      const lower = method.code.toLowerCase();
      if (methodCodes.has(lower)) ctx.addIssue({ code: 'custom', path: ['methods', index, 'code'], message: 'is listed twice (codes are case-insensitive)' });
      methodCodes.add(lower);
    });
    const scenarioKeys = new Map<string, (string | null)[]>();
    seed.scenarios.forEach((scenario, index) => {
      const key = `${scenario.external_id === undefined ? 'phone_number' : 'external_id'}:${scenario.external_id ?? scenario.phone_number ?? ''}`;
      const kinds = scenarioKeys.get(key) ?? [];
      const kind = scenario.kind ?? null;
      if (kinds.some((other) => other === null || kind === null || other === kind)) {
        ctx.addIssue({ code: 'custom', path: ['scenarios', index], message: 'steers the same transactions as an earlier scenario' });
      }
      scenarioKeys.set(key, [...kinds, kind]);
    });
    const appIds = new Set<string>();
    const publicKeys = new Set<string>();
    seed.applications.forEach((app, appIndex) => {
      if (appIds.has(app.id)) ctx.addIssue({ code: 'custom', path: ['applications', appIndex, 'id'], message: 'is used by another application' });
      appIds.add(app.id);
      app.keys.forEach((key, keyIndex) => {
        if (publicKeys.has(key.publicKey)) {
          ctx.addIssue({ code: 'custom', path: ['applications', appIndex, 'keys', keyIndex, 'publicKey'], message: 'is used by another key' });
        }
        publicKeys.add(key.publicKey);
      });
      app.methods?.forEach((method, methodIndex) => {
        if (!methodCodes.has(method.code.toLowerCase())) {
          ctx.addIssue({ code: 'custom', path: ['applications', appIndex, 'methods', methodIndex, 'code'], message: `is not a method listed in methods (${[...methodCodes].join(', ')})` });
        }
      });
    });
  });

export type SeedInput = z.input<typeof seedSchema>;
export type Seed = z.output<typeof seedSchema>;
export type SeedMethod = z.output<typeof methodSchema>;

const DEFAULT_METHODS: SeedMethod[] = [
  { code: 'service_demo', name: 'Service Demo', enabled: true, payments: true, payouts: true, environments: ['sandbox'], payoutPrefixes: [] },
  { code: 'momo_cm', name: 'MTN Mobile Money Cameroon', enabled: true, payments: true, payouts: true, environments: ['sandbox', 'live'], payoutPrefixes: ['+237'] },
];

export function seedMethods(seed: Seed): SeedMethod[] {
  return seed.methods ?? DEFAULT_METHODS;
}

/** The seed used without `--seed`: fixed keys, so they can live in a developer's `.env`. */
export const DEFAULT_SEED_INPUT: SeedInput = {
  applications: [
    {
      id: 'app_paydesk_demo',
      ref: '5b0c6f0e-2d1a-4c43-9a57-3f1f7f0c2a01',
      name: 'Paydesk Demo',
      status: 'active',
      liveApproved: false,
      currency: 'XAF',
      webhookUrl: null,
      keys: [
        { environment: 'sandbox', type: 'payment', publicKey: 'pk_sandbox_payment_paydeskdemo01', secretKey: 'sk_sandbox_payment_paydeskdemo01_secret' },
        { environment: 'sandbox', type: 'payout', publicKey: 'pk_sandbox_payout_paydeskdemo01', secretKey: 'sk_sandbox_payout_paydeskdemo01_secret' },
        { environment: 'live', type: 'payment', publicKey: 'pk_live_payment_paydeskdemo01', secretKey: 'sk_live_payment_paydeskdemo01_secret' },
        { environment: 'live', type: 'payout', publicKey: 'pk_live_payout_paydeskdemo01', secretKey: 'sk_live_payout_paydeskdemo01_secret' },
      ],
      wallets: { sandbox: 10_000_000, live: 0 },
    },
  ],
};

export function defaultSeed(): Seed {
  return seedSchema.parse(DEFAULT_SEED_INPUT);
}

/** A bad seed: `problems` are `path: message` lines, one per failing field. */
export class SeedError extends Error {
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`${source} is not a valid seed:\n${problems.map((line) => `  - ${line}`).join('\n')}`);
    this.name = 'SeedError';
    this.problems = problems;
  }
}

export function parseSeed(value: unknown, source = 'seed'): Seed {
  const result = seedSchema.safeParse(value);
  if (result.success) return result.data;
  throw new SeedError(
    source,
    result.error.issues.map((issue) => `${issue.path.length ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`),
  );
}

export function loadSeedFile(file: string): Seed {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SeedError(file, [`cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SeedError(file, [`is not valid JSON (${(error as Error).message})`]);
  }
  return parseSeed(json, file);
}

/** A UUID derived from a name, so seeded refs stay the same on every start. */
export function stableUuid(name: string): string {
  const hex = createHash('sha256').update(`paydesk:${name}`).digest('hex');
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
