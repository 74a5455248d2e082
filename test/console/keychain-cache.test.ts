/**
 * The keychain read once and never freezing the console (issue 37 item 6), on a real gnome-keyring
 * of the test's own D-Bus session (test/helpers/throwaway-keyring.ts): a secret read once is used
 * again without the keychain (the daemon is SIGSTOPped and a payment still goes out), a stalled
 * keychain answers KEYCHAIN_UNRESPONSIVE while timers, handlers and HTTP keep answering, and a
 * secret changed or deleted through the vault is read anew.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HUNG_WORKERS } from '../../electron/console/keychain-worker';
import { createVault, KEYCHAIN_SERVICE, VaultError } from '../../electron/console/vault';
import { english } from '../../shared/i18n/english';
import { french } from '../../shared/i18n/french';
import { startThrowawayKeyring, type ThrowawayKeyring } from '../helpers/throwaway-keyring';
import { expectFail, expectOk, paymentRequest, startRuntime } from './helpers';

let keyring: ThrowawayKeyring;
let restoreBus: () => void;
const runtimes: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  keyring = await startThrowawayKeyring();
  restoreBus = keyring.use();
});

afterAll(async () => {
  keyring?.resume();
  for (const runtime of runtimes) await runtime.close();
  restoreBus?.();
  await keyring?.stop();
});

/** How many transactions this console's History holds. */
async function historyCount(runtime: Awaited<ReturnType<typeof startRuntime>>): Promise<number> {
  return expectOk(await runtime.handlers['transactions:search']({ query: {}, offset: 0, limit: 500 })).total;
}

/** A console on the throwaway keychain with a profile on its engine's sandbox keys, the secrets stored by another console. */
async function consoleWithStoredSecrets(options: { keychainTimeoutMs?: number } = {}) {
  const runtime = await startRuntime(options);
  runtimes.push(runtime);
  const keys = runtime.engine!.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const paymentKey = keys.find((key) => key.type === 'payment')!;
  // The engine's keys are the same on every start: none left in the keychain by an earlier test, so saving reads nothing.
  const other = createVault();
  for (const key of keys) await other.deleteSecret(key.publicKey);
  const profile = expectOk(
    await runtime.handlers['profiles:save']({
      name: 'Keychain profile',
      baseUrl: runtime.engineUrl!,
      environment: 'sandbox',
      headerWord: 'SVC',
      paymentPublicKey: paymentKey.publicKey,
      payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
    }),
  );
  expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));
  // Stored through a vault of its own: this console has read nothing yet.
  await other.setSecret(paymentKey.publicKey, paymentKey.secretKey);
  other.close();
  return { runtime, profileId: profile.id, paymentKey };
}

describe('the keychain read once', () => {
  it('sends a second payment with the keychain stopped: the secret read for the first is kept in memory', async () => {
    const { runtime } = await consoleWithStoredSecrets({ keychainTimeoutMs: 2_000 });
    expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ description: 'first, reads the keychain' }) }));
    keyring.pause();
    try {
      const second = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ description: 'second, keychain stopped' }) }));
      expect(second.state).not.toBe('failed');
      expect(second.transactionId).toBeTruthy();
    } finally {
      keyring.resume();
    }
  });

  it('reads the keychain once for many reads of one key at once', async () => {
    const calls: string[] = [];
    const vault = createVault(undefined, { onKeychainCall: (operation) => calls.push(operation) });
    const account = `pk_sandbox_payment_once_${process.pid}`;
    const writer = createVault();
    await writer.setSecret(account, 'sk_sandbox_payment_once_secret');
    writer.close();
    const secrets = await Promise.all(Array.from({ length: 50 }, () => vault.useSecret(account)));
    expect(new Set(secrets)).toEqual(new Set(['sk_sandbox_payment_once_secret']));
    expect(await vault.hasSecret(account)).toBe(true);
    expect(await vault.useSecret(account)).toBe('sk_sandbox_payment_once_secret');
    expect(calls).toEqual(['get']);
    vault.close();
  });
});

describe('a stalled keychain', () => {
  it('answers KEYCHAIN_UNRESPONSIVE within its limit while timers, other handlers and HTTP keep answering; nothing is sent', async () => {
    const { runtime } = await consoleWithStoredSecrets({ keychainTimeoutMs: 1_500 });
    const before = (await historyCount(runtime));
    // The longest the event loop went without running this timer: a keychain call on main's thread holds it for the whole stall.
    let ticks = 0;
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      ticks += 1;
      longestGap = Math.max(longestGap, performance.now() - last);
      last = performance.now();
    }, 20);
    const order: string[] = [];
    keyring.pause();
    try {
      const send = runtime.handlers['payments:create']({ request: paymentRequest({ description: 'keychain stalled' }) }).then((result) => {
        order.push('send');
        return result;
      });
      const info = runtime.handlers['app:info']({}).then((result) => {
        order.push('app:info');
        return result;
      });
      const http = fetch(new URL('/_sandbox/settings', runtime.engineUrl!)).then((response) => {
        order.push('http');
        return response.status;
      });
      expectOk(await info);
      // Any answer will do (it asks for a key): the engine's HTTP server in this process answered.
      expect(await http).toBe(401);
      const failure = expectFail(await send, 'KEYCHAIN_UNRESPONSIVE');
      // The main thread ran all along: the timer fired while the keychain hung, and the others answered first.
      expect(ticks).toBeGreaterThan(0);
      expect(longestGap).toBeLessThan(1_500);
      expect(order).toEqual(['app:info', 'http', 'send']);
      expect(failure.message).toMatch(/did not answer (within 2 s|in time): nothing was sent/);
      expect(failure.message).not.toMatch(/DBus|D-Bus|socket|sk_sandbox/);
      expect((await historyCount(runtime))).toBe(before);
      // A second call starts a fresh worker (the first is given up), and fails the same way.
      expectFail(await runtime.handlers['payments:create']({ request: paymentRequest({ description: 'still stalled' }) }), 'KEYCHAIN_UNRESPONSIVE');
    } finally {
      clearInterval(timer);
      keyring.resume();
    }
    // The hung workers were replaced: as soon as the keychain answers again, so does the console (a fresh worker asks it).
    expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ description: 'keychain back' }) }));
  });

  it('holds a few calls to a stalled keychain at most: the next fail at once instead of piling up threads and D-Bus connections', async () => {
    const vault = createVault(undefined, { timeoutMs: 500 });
    const before = keyring.connections();
    keyring.pause();
    try {
      for (let call = 0; call < MAX_HUNG_WORKERS + 5; call += 1) {
        const failure = await vault.useSecret(`pk_sandbox_payment_piled_${call}`).catch((error: unknown) => error);
        expect((failure as VaultError).code).toBe('KEYCHAIN_UNRESPONSIVE');
      }
      expect(keyring.connections() - before).toBeLessThanOrEqual(MAX_HUNG_WORKERS);
    } finally {
      keyring.resume();
      vault.close();
    }
  });

  it('says so in English and French', () => {
    expect(english.errors.KEYCHAIN_UNRESPONSIVE.title).toMatch(/did not answer in time/);
    expect(french.errors.KEYCHAIN_UNRESPONSIVE.title).toMatch(/n’a pas répondu à temps/);
  });

  it('rejects with VaultError KEYCHAIN_UNRESPONSIVE from the vault itself', async () => {
    const vault = createVault(undefined, { timeoutMs: 1_000 });
    keyring.pause();
    try {
      const failure = await vault.useSecret(`pk_${KEYCHAIN_SERVICE}_stalled`).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(VaultError);
      expect((failure as VaultError).code).toBe('KEYCHAIN_UNRESPONSIVE');
    } finally {
      keyring.resume();
      vault.close();
    }
  });
});

describe('a secret changed through the vault', () => {
  it('is read anew: a new secret is used, a deleted one is missing, a deleted profile leaves none behind', async () => {
    const { runtime, profileId, paymentKey } = await consoleWithStoredSecrets();
    expectOk(await runtime.handlers['secrets:set']({ profileId, keyType: 'payment', secret: 'sk_sandbox_payment_wrong_000000000000' }));
    expectFail(await runtime.handlers['payments:create']({ request: paymentRequest({ description: 'wrong secret' }) }), 'INVALID_DIGITAL_SIGNATURE');
    expectOk(await runtime.handlers['secrets:set']({ profileId, keyType: 'payment', secret: paymentKey.secretKey }));
    expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ description: 'right secret' }) }));
    expectOk(await runtime.handlers['secrets:delete']({ profileId, keyType: 'payment' }));
    expectFail(await runtime.handlers['payments:create']({ request: paymentRequest({ description: 'deleted secret' }) }), 'SECRET_MISSING');

    expectOk(await runtime.handlers['secrets:set']({ profileId, keyType: 'payment', secret: paymentKey.secretKey }));
    expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ description: 'before the profile goes' }) }));
    expectOk(await runtime.handlers['profiles:delete']({ id: profileId }));
    const again = expectOk(
      await runtime.handlers['profiles:save']({ name: 'Same key again', baseUrl: runtime.engineUrl!, environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: paymentKey.publicKey, payoutPublicKey: '' }),
    );
    expectOk(await runtime.handlers['profiles:activate']({ id: again.id }));
    expectFail(await runtime.handlers['payments:create']({ request: paymentRequest({ description: 'profile deleted' }) }), 'SECRET_MISSING');
  });
});
