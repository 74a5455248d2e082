/**
 * Writing a seed into an empty engine database, and reading back what the console shows.
 */
import type Database from 'better-sqlite3';
import type { Environment, KeyType } from '../../../../shared/contract';
import { addScenario } from '../scenarios/store';
import { seedMethods, stableUuid, type Seed } from './seed';

export interface SeededKey {
  environment: Environment;
  type: KeyType;
  publicKey: string;
  /** The local sandbox's own fixture secret (it lives in the engine's database, as a server's would). */
  secretKey: string;
  active: boolean;
  ipWhitelist: string[];
}

export interface SeededApplication {
  id: string;
  ref: string;
  name: string;
  status: 'active' | 'inactive' | 'pending';
  liveApproved: boolean;
  currency: string;
  webhookUrl: string | null;
  keys: SeededKey[];
}

export function isSeeded(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM meta WHERE key = 'seeded_at'").get() !== undefined;
}

/** Writes `seed` into an empty database, in one transaction, with opening wallet balances in the ledger. */
export function applySeed(db: Database.Database, seed: Seed, now: number): void {
  db.transaction(() => {
    const insertMethod = db.prepare(`
      INSERT INTO methods (code, code_lower, ref, name, enabled, supports_payments, supports_payouts, environments, payout_prefixes)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const methods = seedMethods(seed);
    for (const method of methods) {
      insertMethod.run(
        method.code,
        method.code.toLowerCase(),
        stableUuid(`method:${method.code.toLowerCase()}`),
        method.name,
        Number(method.enabled),
        Number(method.payments),
        Number(method.payouts),
        JSON.stringify(method.environments),
        JSON.stringify(method.payoutPrefixes),
      );
    }
    const canonical = new Map(methods.map((method) => [method.code.toLowerCase(), method.code]));
    const insertApp = db.prepare(`
      INSERT INTO applications (id, ref, name, status, live_approved, currency, webhook_url, webhook_secret) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    const insertKey = db.prepare(`
      INSERT INTO api_keys (public_key, secret_key, app_id, environment, type, active, ip_whitelist) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    const insertAppMethod = db.prepare('INSERT INTO app_methods (app_id, code, payments, payouts) VALUES (?, ?, ?, ?)');
    const insertLedger = db.prepare(
      'INSERT INTO ledger_entries (app_id, environment, amount, balance_after, reason, transaction_id, at) VALUES (?, ?, ?, ?, ?, NULL, ?)',
    );
    for (const app of seed.applications) {
      insertApp.run(app.id, app.ref ?? stableUuid(`app:${app.id}`), app.name, app.status, Number(app.liveApproved), app.currency, app.webhookUrl, app.webhookSecret);
      for (const key of app.keys) {
        insertKey.run(key.publicKey, key.secretKey, app.id, key.environment, key.type, Number(key.active), JSON.stringify(key.ipWhitelist));
      }
      const appMethods = app.methods ?? methods.map((method) => ({ code: method.code, payments: true, payouts: true }));
      for (const method of appMethods) {
        insertAppMethod.run(app.id, canonical.get(method.code.toLowerCase()), Number(method.payments), Number(method.payouts));
      }
      for (const environment of ['sandbox', 'live'] as const) {
        const opening = app.wallets[environment];
        if (opening > 0) insertLedger.run(app.id, environment, opening, opening, 'opening balance from the seed', now);
      }
    }
    const insertFee = db.prepare('INSERT INTO fee_schedule (kind, percent_bps, fixed) VALUES (?, ?, ?)');
    insertFee.run('payment', seed.fees.payment.percentBps, seed.fees.payment.fixed);
    insertFee.run('payout', seed.fees.payout.percentBps, seed.fees.payout.fixed);
    for (const scenario of seed.scenarios) addScenario(db, scenario, now);
    if (seed.adminToken !== undefined) db.prepare("INSERT INTO meta (key, value) VALUES ('admin_token', ?)").run(seed.adminToken);
    db.prepare("INSERT INTO meta (key, value) VALUES ('seeded_at', ?)").run(String(now));
  })();
}

/** Empties every table but the migration record and the clock offset (extension tables included), then seeds again. */
export function resetToSeed(db: Database.Database, seed: Seed, now: number): void {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'engine_clock')").pluck().all() as string[]);
  db.transaction(() => {
    db.pragma('defer_foreign_keys = ON');
    for (const table of tables) db.prepare(`DELETE FROM "${table.replaceAll('"', '""')}"`).run();
    applySeed(db, seed, now);
  })();
}

/**
 * The two statements of seededApplications, compiled once per database: the console reads the
 * local sandbox's keys to sign each request, and compiling them was most of that read.
 */
const seededStatements = new WeakMap<Database.Database, { apps: Database.Statement; keys: Database.Statement }>();

export function seededApplications(db: Database.Database): SeededApplication[] {
  let statements = seededStatements.get(db);
  if (!statements) {
    statements = {
      apps: db.prepare('SELECT id, ref, name, status, live_approved, currency, webhook_url FROM applications ORDER BY rowid'),
      keys: db.prepare('SELECT public_key, secret_key, environment, type, active, ip_whitelist FROM api_keys WHERE app_id = ? ORDER BY rowid'),
    };
    seededStatements.set(db, statements);
  }
  const apps = statements.apps.all() as {
    id: string; ref: string; name: string; status: SeededApplication['status']; live_approved: number; currency: string; webhook_url: string | null;
  }[];
  const { keys } = statements;
  return apps.map((app) => ({
    id: app.id,
    ref: app.ref,
    name: app.name,
    status: app.status,
    liveApproved: app.live_approved === 1,
    currency: app.currency,
    webhookUrl: app.webhook_url,
    keys: (keys.all(app.id) as { public_key: string; secret_key: string; environment: Environment; type: KeyType; active: number; ip_whitelist: string }[]).map((key) => ({
      environment: key.environment,
      type: key.type,
      publicKey: key.public_key,
      secretKey: key.secret_key,
      active: key.active === 1,
      ipWhitelist: JSON.parse(key.ip_whitelist) as string[],
    })),
  }));
}
