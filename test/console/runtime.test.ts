/**
 * The handler table in plain Node with the real engine, a real journal file and the real keychain
 * (run inside `bash scripts/with-keyring.sh`). The last test searches everything the console wrote
 * for every secret key used.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findCredentials } from '@napi-rs/keyring';
import type { TransactionDetail } from '../../shared/api';
import { LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { KEYCHAIN_SERVICE } from '../../electron/console/vault';
import { expectFail, expectOk, nextEvent, paymentRequest, startRuntime } from './helpers';
import { resources } from '../../shared/i18n';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;

let runtime: Runtime;
const logs: string[] = [];
/** Every secret key that went through the console during this file. */
const secretsUsed = new Set<string>();

beforeAll(async () => {
  for (const method of ['log', 'info', 'warn', 'error'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logs.push(args.map(String).join(' ')));
  }
  runtime = await startRuntime();
  for (const key of runtime.engine!.api.applications()[0]!.keys) secretsUsed.add(key.secretKey);
});

afterAll(async () => {
  await runtime?.close();
  vi.restoreAllMocks();
});

function timelineTypes(detail: TransactionDetail): string[] {
  return detail.timeline.map((event) => event.type).reverse();
}

describe('local sandbox profile', () => {
  it('is built in and active on a first start, with its keys from the engine and nothing to set up', async () => {
    const info = expectOk(await runtime.handlers['app:info'](undefined));
    expect(info).toMatchObject({ activeProfileId: LOCAL_SANDBOX_ID, transport: 'browser', allowLive: true, notices: [] });
    const { profiles, activeId } = expectOk(await runtime.handlers['profiles:list']({}));
    expect(activeId).toBe(LOCAL_SANDBOX_ID);
    expect(profiles).toHaveLength(1);
    expect(profiles[0]).toMatchObject({
      id: LOCAL_SANDBOX_ID,
      builtIn: true,
      baseUrl: runtime.engineUrl,
      environment: 'sandbox',
      paymentPublicKey: 'pk_sandbox_payment_paydeskdemo01',
      hasPaymentSecret: true,
      hasPayoutSecret: true,
    });
    expectFail(await runtime.handlers['profiles:delete']({ id: LOCAL_SANDBOX_ID }), 'CONFLICT');
    expectFail(await runtime.handlers['secrets:set']({ profileId: LOCAL_SANDBOX_ID, keyType: 'payment', secret: 'sk_whatever_12345' }), 'CONFLICT');
  });

  it('creates a payment with a generated external id, journals it first, and watches it to completion', async () => {
    const done = nextEvent(runtime, 'watch:progress', (p) => p.done);
    // The provider decides when the test says so: on the watcher's second attempt.
    const settle = runtime.on('watch:progress', (p) => {
      if (p.attempt === 2) {
        const entry = runtime.journal.prepare('SELECT transaction_id FROM entries WHERE id = ?').get(p.journalId) as { transaction_id: string };
        runtime.engine!.control.settleNow(entry.transaction_id);
      }
    });
    const created = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest() }));
    expect(created.state).toBe('known');
    expect(created.externalId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.transactionId).toMatch(/^TE_/);
    expect(['initiated', 'processing']).toContain(created.status);
    const progress = await done;
    settle();
    expect(progress).toMatchObject({ journalId: created.id, status: 'completed', done: true });
    await runtime.watchesIdle(); // the sandbox's status push is read again, too
    const detail = expectOk(await runtime.handlers['transactions:get']({ journalId: created.id }));
    expect(detail.transaction.status).toBe('completed');
    expect(detail.transaction.fee).not.toBeNull();
    expect(timelineTypes(detail).slice(0, 2)).toEqual(['request_sent', 'response']);
    // The watcher or the sandbox's status push, whichever read it first, recorded the change once.
    expect(detail.timeline.filter((event) => event.status === 'completed' && ['status_seen', 'sandbox_status'].includes(event.type))).toHaveLength(1);
  });

  it('verifies a needs-verify payment: it completes only when Verify asks the provider', async () => {
    const created = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ phone_number: '+237650000008', external_id: 'ORDER-needs-verify-1' }) }));
    expect(created.externalId).toBe('ORDER-needs-verify-1');
    runtime.engine!.control.settleNow(created.transactionId!);
    const verified = expectOk(await runtime.handlers['transactions:verify']({ journalId: created.id }));
    expect(verified.transaction.status).toBe('completed');
    expect(verified.message.length).toBeGreaterThan(0);
    const detail = expectOk(await runtime.handlers['transactions:get']({ journalId: created.id }));
    expect(timelineTypes(detail)).toContain('verify_result');
  });

  it('stops watching after the time limit when the status stays open, leaving Verify to the user', async () => {
    const started = runtime.clock.offset();
    let journalId = '';
    const attempts: number[] = [];
    const off = runtime.on('watch:progress', (p) => {
      if (p.journalId === journalId) attempts.push(p.attempt);
    });
    const done = nextEvent(runtime, 'watch:progress', (p) => p.done && p.journalId === journalId);
    const created = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ phone_number: '+237650000004' }) }));
    journalId = created.id;
    const last = await done;
    off();
    expect(last.status).not.toBe('completed');
    expect(runtime.clock.offset() - started).toBeGreaterThanOrEqual(10 * 60 * 1000);
    // Backoff: 1 s doubling to 15 s over 10 minutes is a few dozen retrieves, not thousands.
    expect(attempts.length).toBeGreaterThan(5);
    expect(attempts.length).toBeLessThan(60);
  });

  it('looks a payment up by external id and answers found:false for an unknown one', async () => {
    const found = expectOk(await runtime.handlers['transactions:lookup']({ id: 'ORDER-needs-verify-1', by: 'external_id', kind: 'payment' }));
    expect(found.found).toBe(true);
    if (found.found) expect(found.transaction.externalId).toBe('ORDER-needs-verify-1');
    const missing = expectOk(await runtime.handlers['transactions:lookup']({ id: 'no-such-order', by: 'external_id', kind: 'payment' }));
    expect(missing).toEqual({ found: false, environment: 'sandbox', profileName: 'Local sandbox' });
  });

  it('maps an API refusal to its code and journals the entry as rejected', async () => {
    const { balance } = expectOk(await runtime.handlers['balance:get']({}));
    const prepared = expectOk(await runtime.handlers['payouts:prepare']({ request: paymentRequest({ amount: balance! + 1 }) }));
    const refused = expectFail(
      await runtime.handlers['payouts:initiate']({ request: paymentRequest({ amount: balance! + 1 }), confirmationToken: prepared.confirmationToken }),
      'INSUFFICIENT_FUNDS',
    );
    const entry = expectOk(await runtime.handlers['transactions:get']({ journalId: refused.journalId! }));
    expect(entry.transaction).toMatchObject({ state: 'rejected', lastError: { code: 'INSUFFICIENT_FUNDS' } });
  });

  it('searches the journal by external id, phone, state and amount, and exports CSV', async () => {
    const byExternal = expectOk(await runtime.handlers['transactions:search']({ query: { externalId: 'ORDER-needs-verify-1' } }));
    expect(byExternal.total).toBe(1);
    const byPhone = expectOk(await runtime.handlers['transactions:search']({ query: { phoneNumber: '+237650000001' } }));
    expect(byPhone.rows.every((row) => row.phoneNumber === '+237650000001')).toBe(true);
    const rejected = expectOk(await runtime.handlers['transactions:search']({ query: { state: 'rejected', kind: 'payout' } }));
    expect(rejected.total).toBe(1);
    const small = expectOk(await runtime.handlers['transactions:search']({ query: { maxAmount: 5000, text: 'Nkem' }, limit: 1 }));
    expect(small.rows).toHaveLength(1);
    expect(small.total).toBeGreaterThanOrEqual(2);
    const csv = expectOk(await runtime.handlers['transactions:export']({ query: { kind: 'payment' } }));
    expect(csv.rows).toBeGreaterThanOrEqual(2);
    expect(csv.filename).toMatch(/^paydesk-transactions-.*\.csv$/);
    expect(csv.csv.split('\r\n')[0]).toContain('external_id');
    // French headers from the catalogue; the values (ids, codes, XAF) are the same as in English.
    const french = expectOk(await runtime.handlers['transactions:export']({ query: { kind: 'payment' }, language: 'fr' }));
    const [header, ...lines] = french.csv.split('\r\n');
    expect(header).toBe(`\uFEFF${Object.values(resources.fr.exports.columns).map((name) => `"${name}"`).join(',')}`);
    expect(header).toContain('ID externe');
    expect(lines.join('\r\n')).toBe(csv.csv.split('\r\n').slice(1).join('\r\n'));
    expect(lines[0]).toMatch(/,"payment",.*,"XAF",/);
  });
});

describe('payout confirmation', () => {
  it('refuses a payout without a token, with a token for another request, and a used or expired token', async () => {
    const request = paymentRequest({ amount: 1200, external_id: 'PAYOUT-confirm-1' });
    expectFail(await runtime.handlers['payouts:initiate']({ request, confirmationToken: 'made-up' }), 'CONFIRMATION_REQUIRED');
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
    expect(quote).toMatchObject({ profileId: LOCAL_SANDBOX_ID, environment: 'sandbox', amount: 1200, currency: 'XAF' });
    expect(quote.fee).not.toBeNull();
    expect(quote.total).toBe(1200 + quote.fee!);
    expect(quote.balance).toBeGreaterThan(0);
    expectFail(
      await runtime.handlers['payouts:initiate']({ request: { ...request, amount: 1201 }, confirmationToken: quote.confirmationToken }),
      'CONFIRMATION_REQUIRED',
    );
    expectOk(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }));
    expectFail(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }), 'CONFIRMATION_REQUIRED');

    const late = expectOk(await runtime.handlers['payouts:prepare']({ request: { ...request, external_id: 'PAYOUT-confirm-2' } }));
    runtime.clock.advance(5 * 60 * 1000 + 1);
    expectFail(
      await runtime.handlers['payouts:initiate']({ request: { ...request, external_id: 'PAYOUT-confirm-2' }, confirmationToken: late.confirmationToken }),
      'CONFIRMATION_REQUIRED',
    );
  });

  it('sends a double-submitted payout once', async () => {
    const request = paymentRequest({ amount: 700, external_id: 'PAYOUT-double-1' });
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
    const results = await Promise.all([
      runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }),
      runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok && result.error.code === 'CONFIRMATION_REQUIRED')).toHaveLength(1);
    const sent = expectOk(await runtime.handlers['transactions:search']({ query: { externalId: 'PAYOUT-double-1' } }));
    expect(sent.total).toBe(1);
    // The payout is followed up like a payment: verify and lookup use the payout endpoints.
    const payout = sent.rows[0]!;
    expect(payout.kind).toBe('payout');
    runtime.engine!.control.settleNow(payout.transactionId!);
    expect(expectOk(await runtime.handlers['transactions:verify']({ journalId: payout.id })).transaction.status).toBe('completed');
    const found = expectOk(await runtime.handlers['transactions:lookup']({ id: payout.transactionId!, by: 'transaction_id', kind: 'payout' }));
    expect(found).toMatchObject({ found: true, transaction: { id: payout.id, status: 'completed' } });
    expect(expectOk(await runtime.handlers['transactions:lookup']({ id: payout.transactionId!, by: 'transaction_id', kind: 'payment' })).found).toBe(false);
  });

  it('asks a live profile for the amount typed again, and uses its secret from the real keychain', async () => {
    const live = expectOk(
      await runtime.handlers['profiles:save']({
        name: 'Demo live',
        baseUrl: runtime.engineUrl!,
        environment: 'live',
        headerWord: 'SVC',
        paymentPublicKey: 'pk_live_payment_paydeskdemo01',
        payoutPublicKey: 'pk_live_payout_paydeskdemo01',
      }),
    );
    expect(live).toMatchObject({ builtIn: false, hasPayoutSecret: false });
    const secret = 'sk_live_payout_paydeskdemo01_secret';
    secretsUsed.add(secret);
    expectOk(await runtime.handlers['secrets:set']({ profileId: live.id, keyType: 'payout', secret }));
    expect(expectOk(await runtime.handlers['secrets:has']({ profileId: live.id, keyType: 'payout' }))).toEqual({ stored: true });
    expect(findCredentials(KEYCHAIN_SERVICE).some((credential) => credential.account === 'pk_live_payout_paydeskdemo01')).toBe(true);
    expectOk(await runtime.handlers['profiles:activate']({ id: live.id }));

    const request = paymentRequest({ amount: 900 });
    const missing = expectFail(await runtime.handlers['payouts:prepare']({ request }), 'CONFIRMATION_REQUIRED');
    expect(missing.fields).toHaveProperty('typedAmount');
    expectFail(await runtime.handlers['payouts:prepare']({ request, typedAmount: 9000 }), 'CONFIRMATION_REQUIRED');
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request, typedAmount: 900 }));
    expect(quote.environment).toBe('live');
    // The engine's demo application is not approved for live mode: the API's own code comes back.
    expectFail(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }), 'LIVE_MODE_NOT_ENABLED');
    // Payments need the payment secret, which is not stored.
    expectFail(await runtime.handlers['payments:create']({ request }), 'SECRET_MISSING');

    expectOk(await runtime.handlers['profiles:delete']({ id: live.id }));
    expect(findCredentials(KEYCHAIN_SERVICE).some((credential) => credential.account === 'pk_live_payout_paydeskdemo01')).toBe(false);
    expect(expectOk(await runtime.handlers['app:info']({})).activeProfileId).toBe(LOCAL_SANDBOX_ID);
  });

  it('refuses live profiles when the host was started without allowing them', async () => {
    const other = await startRuntime({ allowLive: false, engine: false });
    try {
      const live = expectOk(
        await other.handlers['profiles:save']({
          name: 'Live',
          baseUrl: 'https://api.example.com',
          environment: 'live',
          headerWord: 'SVC',
          paymentPublicKey: 'pk_live_payment_x1',
          payoutPublicKey: 'pk_live_payout_x1',
        }),
      );
      expectOk(await other.handlers['profiles:activate']({ id: live.id }));
      expectFail(await other.handlers['payments:create']({ request: paymentRequest() }), 'LIVE_REFUSED');
      expectFail(await other.handlers['payouts:prepare']({ request: paymentRequest(), typedAmount: 5000 }), 'LIVE_REFUSED');
      expectFail(await other.handlers['sandbox:wallet']({}), 'SANDBOX_UNAVAILABLE');
      expect(expectOk(await other.handlers['sandbox:status']({})).running).toBe(false);
    } finally {
      await other.close();
    }
  });
});

describe('saved profiles', () => {
  it('signs with the secret from the real keychain, and refuses to send without one', async () => {
    const profile = expectOk(
      await runtime.handlers['profiles:save']({
        name: 'Typo keys',
        baseUrl: runtime.engineUrl!,
        environment: 'sandbox',
        headerWord: 'SVC',
        paymentPublicKey: 'pk_sandbox_payment_unknown77',
        payoutPublicKey: '',
      }),
    );
    expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));
    expectFail(await runtime.handlers['payments:create']({ request: paymentRequest() }), 'SECRET_MISSING');
    expect(expectOk(await runtime.handlers['transactions:search']({ query: { profileId: profile.id } })).total).toBe(0);
    const secret = 'sk_sandbox_payment_unknown77_f00dfeed';
    secretsUsed.add(secret);
    expectOk(await runtime.handlers['secrets:set']({ profileId: profile.id, keyType: 'payment', secret }));
    expect(expectOk(await runtime.handlers['profiles:list']({})).profiles.find((p) => p.id === profile.id)).toMatchObject({
      hasPaymentSecret: true,
      hasPayoutSecret: false,
    });
    // The engine does not know this key: its own code comes back, and the entry is rejected.
    const refused = expectFail(await runtime.handlers['payments:create']({ request: paymentRequest() }), 'INVALID_API_KEY');
    expect(expectOk(await runtime.handlers['transactions:get']({ journalId: refused.journalId! })).transaction.state).toBe('rejected');
    expectFail(await runtime.handlers['secrets:set']({ profileId: profile.id, keyType: 'payout', secret: 'sk_sandbox_payout_zz_12345678' }), 'INVALID_INPUT');
    expect(expectOk(await runtime.handlers['secrets:delete']({ profileId: profile.id, keyType: 'payment' }))).toEqual({ deleted: true });
    expect(expectOk(await runtime.handlers['secrets:has']({ profileId: profile.id, keyType: 'payment' }))).toEqual({ stored: false });
    const mismatched = expectFail(
      await runtime.handlers['profiles:save']({
        id: profile.id,
        name: profile.name,
        baseUrl: profile.baseUrl,
        headerWord: 'SVC',
        environment: 'live',
        paymentPublicKey: profile.paymentPublicKey,
        payoutPublicKey: 'pk_sandbox_payment_unknown77',
      }),
      'INVALID_INPUT',
    );
    expect(Object.keys(mismatched.fields ?? {})).toEqual(['paymentPublicKey', 'payoutPublicKey']);
    expectOk(await runtime.handlers['profiles:activate']({ id: LOCAL_SANDBOX_ID }));
  });
});

describe('sandbox controls', () => {
  it('tops up the wallet, settles, toggles maintenance and advances the clock', async () => {
    const before = expectOk(await runtime.handlers['sandbox:wallet']({}));
    const sandboxBalance = before.balances.find((b) => b.environment === 'sandbox')!.balance;
    expect(expectOk(await runtime.handlers['sandbox:topUp']({ environment: 'sandbox', amount: 2500, reason: 'test top-up' }))).toEqual({ balance: sandboxBalance + 2500 });
    expectFail(await runtime.handlers['sandbox:topUp']({ environment: 'live', amount: -1, reason: 'too much' }), 'INVALID_INPUT');
    expect(expectOk(await runtime.handlers['sandbox:wallet']({})).ledger[0]).toMatchObject({ amount: 2500, reason: 'test top-up' });
    expectFail(await runtime.handlers['sandbox:settle']({ transactionId: 'TE_nope' }), 'NOT_FOUND');
    expectOk(await runtime.handlers['sandbox:setMaintenance']({ on: true }));
    expect(expectOk(await runtime.handlers['sandbox:status']({})).maintenance).toBe(true);
    // A 503 on a POST may come after the service took the request: outcome unknown, looked up before any resend.
    const refused = await runtime.handlers['payments:create']({ request: paymentRequest() });
    expect(expectFail(refused, 'OUTCOME_UNKNOWN').message).toMatch(/MAINTENANCE_MODE/);
    expectOk(await runtime.handlers['sandbox:setMaintenance']({ on: false }));
    expect(expectOk(await runtime.handlers['sandbox:advanceClock']({ seconds: 60 })).clockOffsetSeconds).toBeGreaterThanOrEqual(60);
    // More than the 5-minute window ahead: the console still signs with real time, and is accepted.
    expectOk(await runtime.handlers['sandbox:advanceClock']({ seconds: 600 }));
    expectOk(await runtime.handlers['payments:create']({ request: paymentRequest() }));
    expect(expectOk(await runtime.handlers['sandbox:resetClock']({}))).toMatchObject({ clockOffsetSeconds: 0 });
    expect(expectOk(await runtime.handlers['sandbox:status']({})).clockOffsetSeconds).toBe(0);
    expect(expectOk(await runtime.handlers['sandbox:outcomes']({})).outcomes.length).toBeGreaterThan(5);
  });
});

describe('sandbox webhooks', () => {
  it('sets the webhook URL, lists deliveries with their attempts, and redelivers', async () => {
    const received: string[] = [];
    let onReceived: () => void = () => undefined;
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push(body);
        response.writeHead(200).end('ok');
        onReceived();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      expect(expectOk(await runtime.handlers['sandbox:setWebhookUrl']({ url }))).toEqual({ url });
      expect(expectOk(await runtime.handlers['sandbox:status']({})).webhookUrl).toBe(url);
      const firstDelivery = new Promise<void>((resolve) => (onReceived = resolve));
      const deliveryEvent = nextEvent(runtime, 'sandbox:event', (event) => event.kind === 'delivery');
      const created = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-webhook-1' }) }));
      expectOk(await runtime.handlers['sandbox:settle']({ transactionId: created.transactionId! }));
      await firstDelivery;
      await deliveryEvent;
      const { deliveries } = expectOk(await runtime.handlers['sandbox:deliveries']({}));
      const mine = deliveries.find((delivery) => delivery.transactionId === created.transactionId);
      expect(mine).toBeDefined();
      expect(mine!.url).toBe(url);
      const count = received.length;
      const again = new Promise<void>((resolve) => (onReceived = resolve));
      expect(expectOk(await runtime.handlers['sandbox:redeliver']({ deliveryId: mine!.id }))).toEqual({ queued: true });
      await again;
      expect(received.length).toBeGreaterThan(count);
      expectFail(await runtime.handlers['sandbox:redeliver']({ deliveryId: 'no-such-delivery' }), 'NOT_FOUND');
      expect(expectOk(await runtime.handlers['sandbox:setWebhookUrl']({ url: '' }))).toEqual({ url: null });
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

/** Every file the console wrote under its user-data folder, except the engine's own database. */
function consoleFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile() && !/sandbox\.db/.test(path));
}

describe('secrets stay in the keychain', () => {
  it('finds no secret key in the journal, the settings file or the logs', async () => {
    await runtime.watchesIdle();
    runtime.journal.pragma('wal_checkpoint(TRUNCATE)');
    const files = consoleFiles(runtime.dir);
    expect(files.some((path) => path.endsWith('journal.db'))).toBe(true);
    expect(files.some((path) => path.endsWith('settings.json'))).toBe(true);
    expect(files.some((path) => path.endsWith('console.log'))).toBe(true);
    expect(secretsUsed.size).toBeGreaterThanOrEqual(5);
    for (const path of files) {
      const bytes = readFileSync(path);
      for (const secret of secretsUsed) expect(bytes.indexOf(secret), `${secret} in ${path}`).toBe(-1);
    }
    const rows = JSON.stringify(runtime.journal.prepare('SELECT * FROM entries').all()) + JSON.stringify(runtime.journal.prepare('SELECT * FROM timeline').all());
    for (const secret of secretsUsed) {
      expect(rows.includes(secret)).toBe(false);
      expect(logs.join('\n').includes(secret)).toBe(false);
    }
  });
});
