/**
 * The team sender's key store and command line (electron/sender/keys-file.ts, cli.ts;
 * docs/decisions/team-sender-holds-the-keys.md): a keys file other users could read is refused, a
 * malformed one is refused naming where without quoting a value, the secrets are read by public key
 * only and never written; the command line's refusals are sentences.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readKeysFile } from '../../electron/sender/keys-file';
import { parseSenderArgs, socketFolderOf } from '../../electron/sender/cli';
import { tempDir } from '../console/helpers';

const dir = tempDir('paydesk-sender-keys-');
const KEYS = { paymentPublicKey: 'pk_pay_12345678', paymentSecretKey: 'sk_pay_SECRET_1', payoutPublicKey: 'pk_out_12345678', payoutSecretKey: 'sk_out_SECRET_2' };

function keysFile(name: string, content: unknown, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content), { mode });
  chmodSync(path, mode);
  return path;
}

describe('the sender\'s keys file', () => {
  it('gives the signer each secret by its public key, in memory, and refuses a write', () => {
    const keys = readKeysFile(keysFile('ok.json', { profiles: { team: KEYS } }), 'linux');
    expect(keys.profileIds).toEqual(['team']);
    expect(keys.publicKeysOf('team')).toEqual({ paymentPublicKey: KEYS.paymentPublicKey, payoutPublicKey: KEYS.payoutPublicKey });
    expect(keys.keyring('Paydesk', KEYS.payoutPublicKey).getPassword()).toBe(KEYS.payoutSecretKey);
    expect(keys.keyring('Paydesk', 'pk_unknown_000').getPassword()).toBeNull();
    expect(() => keys.keyring('Paydesk', KEYS.payoutPublicKey).setPassword('x')).toThrow(/keys file/);
  });

  it('refuses a file other users can read, saying how to fix it', () => {
    const path = keysFile('open.json', { profiles: { team: KEYS } }, 0o644);
    expect(() => readKeysFile(path, 'linux')).toThrow(`can be read by other users (mode 644): run chmod 600 ${path}`);
    expect(() => readKeysFile(keysFile('group.json', { profiles: { team: KEYS } }, 0o640), 'linux')).toThrow(/mode 640/);
  });

  it('refuses a malformed file naming where, never quoting a secret', () => {
    const error = (() => {
      try {
        readKeysFile(keysFile('bad.json', { profiles: { team: { ...KEYS, payoutSecretKey: 'sk out with spaces SECRET' } } }), 'linux');
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('not refused');
    })();
    expect(error.message).toMatch(/profiles\.team\.payoutSecretKey/);
    expect(error.message).not.toMatch(/SECRET/);
    expect(() => readKeysFile(keysFile('notjson.json', '{ nope'), 'linux')).toThrow(/is not JSON/);
    expect(() => readKeysFile(join(dir, 'missing.json'), 'linux')).toThrow(/cannot be read: ENOENT/);
  });
});

describe('the sender\'s command line', () => {
  it('needs a workspace and a keys file, and whole milliseconds', () => {
    expect(parseSenderArgs([])).toEqual({ ok: false, message: '--workspace is required' });
    expect(parseSenderArgs(['--workspace', 'postgres://s@h/db'])).toMatchObject({ ok: false, message: expect.stringMatching(/^--keys is required/) });
    expect(parseSenderArgs(['--workspace', 'postgres://s@h/db', '--keys', 'k.json', '--watch-ms', '1.5'])).toMatchObject({ ok: false });
    expect(parseSenderArgs(['--workspace', 'postgres://s@h/db', '--keys', 'k.json', '--nope', '1'])).toEqual({ ok: false, message: 'unknown argument "--nope"' });
    expect(parseSenderArgs(['--workspace', 'postgres://s@h/db', '--keys', 'k.json', '--data', 'd'], '/srv')).toEqual({ ok: true, args: { workspace: 'postgres://s@h/db', keys: '/srv/k.json', data: '/srv/d' } });
  });

  it('takes the webhook port, host (127.0.0.1 unless told) and secret file, refusing a bad port or a host without a port', () => {
    const base = ['--workspace', 'postgres://s@h/db', '--keys', 'k.json', '--data', 'd'];
    expect(parseSenderArgs([...base, '--webhook-port', '8085', '--webhook-secret-file', 'whsec.txt'], '/srv')).toEqual({
      ok: true,
      args: { workspace: 'postgres://s@h/db', keys: '/srv/k.json', data: '/srv/d', webhookPort: 8085, webhookHost: '127.0.0.1', webhookSecretFile: '/srv/whsec.txt' },
    });
    expect(parseSenderArgs([...base, '--webhook-port', '0', '--webhook-host', '0.0.0.0'], '/srv')).toMatchObject({ ok: true, args: { webhookPort: 0, webhookHost: '0.0.0.0' } });
    for (const port of ['65536', '-1', '80.5', 'http']) {
      expect(parseSenderArgs([...base, '--webhook-port', port])).toEqual({ ok: false, message: '--webhook-port is a port number from 0 to 65535 (0: any free port)' });
    }
    expect(parseSenderArgs([...base, '--webhook-host', '0.0.0.0'])).toEqual({ ok: false, message: '--webhook-host and --webhook-secret-file need --webhook-port' });
  });

  it('takes --sandbox without --keys (or with them), its port and host (127.0.0.1 unless told), and refuses what does not go with it', () => {
    const base = ['--workspace', 'postgres://s@h/db', '--data', 'd'];
    expect(parseSenderArgs([...base, '--sandbox'], '/srv')).toEqual({ ok: true, args: { workspace: 'postgres://s@h/db', data: '/srv/d', sandbox: { host: '127.0.0.1', port: 0 } } });
    expect(parseSenderArgs([...base, '--keys', 'k.json', '--sandbox', '--sandbox-port', '4010', '--sandbox-host', '0.0.0.0'], '/srv')).toMatchObject({ ok: true, args: { keys: '/srv/k.json', sandbox: { host: '0.0.0.0', port: 4010 } } });
    expect(parseSenderArgs([...base, '--keys', 'k.json', '--sandbox-port', '4010'])).toEqual({ ok: false, message: '--sandbox-port and --sandbox-host need --sandbox' });
    expect(parseSenderArgs([...base, '--sandbox', '--sandbox-port', '70000'])).toEqual({ ok: false, message: '--sandbox-port is a port number from 0 to 65535 (0: any free port)' });
    expect(parseSenderArgs([...base, '--sandbox', '--webhook-port', '0', '--webhook-secret-file', 'w.txt'])).toMatchObject({ ok: false, message: expect.stringMatching(/^--webhook-secret-file cannot go with --sandbox/) });
  });

  it('reads libpq\'s ?host=/folder as the unix socket of a server on this machine only', () => {
    expect(socketFolderOf('postgres://s@localhost:5433/db?host=%2Fvar%2Frun%2Fpostgresql')).toEqual({ url: 'postgres://s@localhost:5433/db', socketFolder: '/var/run/postgresql' });
    expect(socketFolderOf('postgres://s@db.example.com:5432/db?host=%2Ftmp')).toEqual({ url: 'postgres://s@db.example.com:5432/db?host=%2Ftmp', socketFolder: null });
  });
});
