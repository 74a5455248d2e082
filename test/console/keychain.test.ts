/**
 * The vault against the real OS keychain (Secret Service inside `scripts/with-keyring.sh`), and a
 * child process with no Secret Service at all, which must get the clear NO_KEYCHAIN error and
 * never a plain-text fallback.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCredentials } from '@napi-rs/keyring';
import { createVault, KEYCHAIN_SERVICE, keychainProblemOf, linuxKeychainAdvice, VaultError } from '../../electron/console/vault';
import { memoryKeyring } from '../helpers/memory-keyring';
import { tempDir } from './helpers';

describe('the vault on the real keychain', () => {
  it('stores, finds, hands to the signer and deletes a secret under service Paydesk, account = public key', async () => {
    const vault = createVault();
    const publicKey = `pk_sandbox_payment_vault_${process.pid}`;
    const secret = 'sk_sandbox_payment_vault_roundtrip_1';
    expect(await vault.hasSecret(publicKey)).toBe(false);
    await vault.setSecret(publicKey, secret);
    expect(await vault.hasSecret(publicKey)).toBe(true);
    expect(findCredentials(KEYCHAIN_SERVICE).find((credential) => credential.account === publicKey)?.password).toBe(secret);
    expect(await vault.useSecret(publicKey)).toBe(secret);
    await vault.setSecret(publicKey, `${secret}-rotated`);
    expect(await vault.useSecret(publicKey)).toBe(`${secret}-rotated`);
    expect(await vault.deleteSecret(publicKey)).toBe(true);
    expect(await vault.deleteSecret(publicKey)).toBe(false);
    expect(await vault.hasSecret(publicKey)).toBe(false);
    vault.close();
  });

  it('says which secret is missing without quoting any secret', async () => {
    const vault = createVault();
    const failure = await vault.useSecret('pk_sandbox_payment_never_stored').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VaultError);
    expect((failure as VaultError).code).toBe('SECRET_MISSING');
    expect((failure as VaultError).message).toContain('pk_sandbox_payment_never_stored');
    vault.close();
  });

  it('maps a failing keyring backend to NO_KEYCHAIN (injected backend)', async () => {
    const broken = createVault(() => ({
      getPassword: () => {
        throw new Error("Couldn't access platform storage: Secret Service: no result found");
      },
      setPassword: () => {
        throw new Error('locked');
      },
      deletePassword: () => {
        throw new Error('locked');
      },
    }));
    await expect(broken.hasSecret('pk_x')).rejects.toThrow(/gnome-keyring/);
    // D-Bus's own reply timeout (a Secret Service stopped mid-call) is an unresponsive keychain, not a locked one ("blocked" in its text).
    const noReply = createVault(() => ({
      getPassword: () => {
        throw new Error(
          'Platform failure: DBus error: Did not receive a reply. Possible causes include: the remote application did not send a reply, the message bus security policy blocked the reply, the reply timeout expired, or the network connection was broken.',
        );
      },
      setPassword: () => undefined,
      deletePassword: () => false,
    }));
    const failure = await noReply.useSecret('pk_z').catch((error: unknown) => error);
    expect((failure as VaultError).code).toBe('KEYCHAIN_UNRESPONSIVE');
    expect((failure as VaultError).message).toMatch(/did not answer in time: nothing was sent/);
    expect((failure as VaultError).message).not.toMatch(/DBus|D-Bus|reply/);
    const memory = memoryKeyring();
    const vault = createVault(memory);
    await vault.setSecret('pk_y', 'sk_y_12345678');
    expect(memory.entries.size).toBe(1);
  });
});

describe('no Secret Service', () => {
  it('answers NO_KEYCHAIN saying what to install and unlock, and writes the secret nowhere', () => {
    const dir = tempDir();
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/no-keychain-child.ts'), dir], {
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/paydesk-bus' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.status, child.stderr).toBe(0);
    const { set, has, list } = JSON.parse(child.stdout) as {
      set: { ok: false; error: { code: string; message: string } };
      has: { ok: false; error: { code: string; message: string } };
      list: { ok: true; value: { profiles: { hasPaymentSecret: boolean }[] } };
    };
    expect(set.ok).toBe(false);
    expect(set.error.code).toBe('NO_KEYCHAIN');
    expect(set.error.message).toMatch(/gnome-keyring/);
    expect(set.error.message).toMatch(/unlock/);
    expect(set.error.message).toMatch(/never stores secret keys in plain text/);
    expect(has.error.code).toBe('NO_KEYCHAIN');
    // Listing profiles still works (the local sandbox needs no keychain).
    expect(list.ok).toBe(true);
    expect(list.value.profiles.every((profile) => profile.hasPaymentSecret === false)).toBe(true);
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      const path = join(dir, name);
      if (statSync(path).isFile()) expect(readFileSync(path).indexOf('sk_sandbox_payment_nokeychain_secret')).toBe(-1);
    }
  });
});

describe('no keychain, in words (issue 9, item 8)', () => {
  const RAW = /DBus error|D-Bus error|socket|X11|DBUS_SESSION_BUS_ADDRESS|\/nonexistent|Platform failure|keyring said/;

  it('sorts the library\'s failures into causes the user can act on', () => {
    expect(keychainProblemOf('Platform failure: DBus error: Failed to connect to socket /run/user/1000/bus: No such file or directory')).toBe('no-session-bus');
    expect(keychainProblemOf('Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled at compile time, set your DBUS_SESSION_BUS_ADDRESS instead')).toBe('no-session-bus');
    expect(keychainProblemOf('Platform failure: DBus error: The name org.freedesktop.secrets was not provided by any .service files')).toBe('no-secret-service');
    expect(keychainProblemOf('Platform failure: the collection is locked')).toBe('locked');
    expect(keychainProblemOf('No default collection: Object does not exist at path “/org/freedesktop/secrets/aliases/default”')).toBe('no-default-keyring');
    expect(keychainProblemOf('something else entirely')).toBe('unknown');
    for (const problem of ['no-session-bus', 'no-secret-service', 'locked', 'no-default-keyring', 'unknown'] as const) {
      const advice = linuxKeychainAdvice(problem);
      expect(advice).toMatch(/never stores secret keys in plain text/);
      expect(advice).not.toMatch(RAW);
    }
    expect(linuxKeychainAdvice('no-secret-service')).toMatch(/apt install gnome-keyring/);
  });

  it('a process with no session bus is told what to start, with no D-Bus or X11 text', () => {
    for (const env of [{ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/paydesk-bus' }, { DBUS_SESSION_BUS_ADDRESS: '', DISPLAY: '' }]) {
      const dir = tempDir();
      try {
        const child = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/no-keychain-child.ts'), dir], {
          env: { ...process.env, ...env },
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(child.status, child.stderr).toBe(0);
        const { set } = JSON.parse(child.stdout) as { set: { ok: false; error: { code: string; message: string } } };
        expect(set.error.code).toBe('NO_KEYCHAIN');
        expect(set.error.message).toMatch(/no desktop session bus \(D-Bus\) is running/);
        expect(set.error.message).toMatch(/dbus-run-session/);
        expect(set.error.message).not.toMatch(RAW);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

