/**
 * One sandbox for the team (issue 38 item 4; docs/team-sender.md "One sandbox for the team"): the
 * sender started with `--sandbox` runs the sandbox engine in its own process, as the team's sandbox
 * service. Rehearsals, Help send and training then happen on one engine, whose keys only the sender
 * holds, instead of on each desktop's Local sandbox.
 *
 * - The engine's SQLite is `sandbox.db` in the folder given (under the sender's `--data`), so its
 *   transactions, wallet, webhook secret and keys survive a restart.
 * - Its application's keys and control API token are made once, at random, and kept in `keys.json`
 *   (mode 0600) beside it: never in the workspace, never printed.
 * - Its webhooks go to the sender's own `POST /webhooks/service`, checked with the engine's `whsec_`
 *   secret (`pointWebhooksAt`, once the sender serves them).
 * - Published on the workspace (migration 49): where it answers for every role, the control API and
 *   its token for admins only, and the team profile `team-sandbox` with its keys held by the sender.
 *   Its control API answers any address with the token (docs/decisions/team-sandbox-control-api.md).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { z } from 'zod';
import { isLoopbackHost, parseSeed, startEngine, type EngineHandle } from '@paydesk/sandbox';
import { TEAM_SANDBOX } from '../console/storage/postgres/schema-names';
import { readPrivateJson, type SenderProfileKeys } from './keys-file';

/** The engine's one application: the team's. */
export const TEAM_SANDBOX_APP_ID = 'app_team_sandbox';

const storedSchema = z.strictObject({
  adminToken: z.string().regex(/^adm_[A-Za-z0-9_]{32,}$/),
  keys: z.strictObject({
    paymentPublicKey: z.string().regex(/^pk_sandbox_payment_[a-f0-9]{24}$/),
    paymentSecretKey: z.string().regex(/^sk_sandbox_payment_[a-f0-9]{48}$/),
    payoutPublicKey: z.string().regex(/^pk_sandbox_payout_[a-f0-9]{24}$/),
    payoutSecretKey: z.string().regex(/^sk_sandbox_payout_[a-f0-9]{48}$/),
  }),
});
type Stored = z.infer<typeof storedSchema>;

export interface TeamSandboxOptions {
  /** Its folder: `sandbox.db` and `keys.json` (the CLI: `<--data>/team-sandbox`). */
  dir: string;
  host: string;
  /** 0: any free port (a restart then publishes the new one). */
  port: number;
}

export interface TeamSandbox {
  engine: EngineHandle;
  /** Where the public API answers, as published (a wildcard host is named by this machine's name). */
  baseUrl: string;
  controlUrl: string;
  /** The team-sandbox profile's key pairs, for the sender's keyring only. */
  profileKeys: SenderProfileKeys;
  /** The engine's `whsec_` webhook signing secret, for the sender's receiver only. */
  webhookSecret: string;
  /** Points the engine's webhooks at the sender's receiver. */
  pointWebhooksAt(url: string): void;
  /** Publishes it on the workspace as the sender login (only a sender may: migration 49). */
  publish(workspace: pg.PoolConfig): Promise<void>;
  stop(): Promise<void>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The keys and token, made once; a database without them is refused (its keys would be unknown). */
function storedKeys(dir: string): Stored {
  const file = join(dir, 'keys.json');
  if (!existsSync(file)) {
    if (existsSync(join(dir, 'sandbox.db'))) throw new Error(`the team sandbox's keys file ${file} is missing beside its database: put it back, or move the folder ${dir} away to start a new team sandbox`);
    const made: Stored = {
      adminToken: `adm_${hex(24)}`,
      keys: {
        paymentPublicKey: `pk_sandbox_payment_${hex(12)}`,
        paymentSecretKey: `sk_sandbox_payment_${hex(24)}`,
        payoutPublicKey: `pk_sandbox_payout_${hex(12)}`,
        payoutSecretKey: `sk_sandbox_payout_${hex(24)}`,
      },
    };
    writeFileSync(file, `${JSON.stringify(made)}\n`, { mode: 0o600, flag: 'wx' });
  }
  return readPrivateJson(file, `the team sandbox's keys file ${file}`, storedSchema, (message) => new Error(message));
}

/** The URL others reach a server on: a wildcard address is this machine's name. */
function reachableUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? hostname() : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

export async function startTeamSandbox(options: TeamSandboxOptions): Promise<TeamSandbox> {
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const stored = storedKeys(options.dir);
  const { keys } = stored;
  // Applied only to an empty database: a restart keeps the engine's own rows (keys, wallet, transactions).
  const seed = parseSeed({
    applications: [{
      id: TEAM_SANDBOX_APP_ID,
      name: 'Team sandbox',
      keys: [
        { environment: 'sandbox', type: 'payment', publicKey: keys.paymentPublicKey, secretKey: keys.paymentSecretKey },
        { environment: 'sandbox', type: 'payout', publicKey: keys.payoutPublicKey, secretKey: keys.payoutSecretKey },
      ],
      wallets: { sandbox: 10_000_000, live: 0 },
    }],
    adminToken: stored.adminToken,
  }, 'the team sandbox');
  // Served beyond this machine, its control API answers admins' desktops there too, with the token.
  const controlFrom = isLoopbackHost(options.host) ? 'loopback' : 'any';
  const engine = await startEngine({ host: options.host, port: options.port, db: join(options.dir, 'sandbox.db'), seed, adminToken: stored.adminToken, controlFrom });
  const baseUrl = reachableUrl(options.host, engine.api.port);
  const controlUrl = `${baseUrl}/_sandbox`;
  return {
    engine,
    baseUrl,
    controlUrl,
    profileKeys: { ...keys },
    webhookSecret: engine.webhooks.secret(TEAM_SANDBOX_APP_ID),
    pointWebhooksAt: (url) => engine.webhooks.setUrl(TEAM_SANDBOX_APP_ID, url),
    async publish(workspace) {
      const { max: _max, idleTimeoutMillis: _idle, ...config } = workspace;
      const client = new pg.Client({ ...config, application_name: 'paydesk-sender-sandbox' });
      await client.connect();
      try {
        await client.query(`SELECT ${TEAM_SANDBOX.publish}($1, $2, $3)`, [baseUrl, controlUrl, stored.adminToken]);
      } finally {
        await client.end();
      }
    },
    stop: () => engine.stop(),
  };
}
