import { describe, expect, it } from 'vitest';
import { defaultUserDataDir, parseCliArgs } from '../../electron/browser-host/cli-args';

const defaults = { cwd: '/work', userDataDir: '/home/ada/.local/share/paydesk', staticDir: '/repo/dist/renderer' };

function refusal(argv: string[]): string {
  const parsed = parseCliArgs(argv, defaults);
  if (parsed.ok) throw new Error(`expected ${argv.join(' ')} to be refused`);
  return parsed.message;
}

describe('browser host command line', () => {
  it('defaults to a random port on 127.0.0.1, the per-user folder, live refused, a browser opened', () => {
    expect(parseCliArgs([], defaults)).toEqual({
      ok: true,
      options: { port: 0, host: '127.0.0.1', userDataDir: defaults.userDataDir, staticDir: defaults.staticDir, allowLive: false, open: true, help: false },
    });
  });

  it('reads every flag, in both spellings', () => {
    const parsed = parseCliArgs(['--port', '8123', '--host=::1', '--user-data', 'data', '--static=/srv/r', '--allow-live', '--no-open'], defaults);
    expect(parsed).toEqual({
      ok: true,
      options: { port: 8123, host: '::1', userDataDir: '/work/data', staticDir: '/srv/r', allowLive: true, open: false, help: false },
    });
    expect(parseCliArgs(['--host', 'localhost'], defaults)).toMatchObject({ ok: true, options: { host: '127.0.0.1' } });
    expect(parseCliArgs(['--help'], defaults)).toMatchObject({ ok: true, options: { help: true } });
  });

  it('refuses bad ports precisely', () => {
    for (const port of ['abc', '-1', '65536', '80.5', '1e3', '999999']) {
      expect(refusal(['--port', port])).toBe(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(port)}`);
    }
  });

  it('refuses a non-loopback host, saying why', () => {
    for (const host of ['0.0.0.0', '192.168.1.10', '::', 'example.com', '127.0.0.1.evil.example']) {
      expect(refusal(['--host', host])).toMatch(/^--host must be a loopback address .* never served to a network$/);
    }
  });

  it('refuses unknown options, missing values, repeated flags and stray arguments', () => {
    expect(refusal(['--prot', '80'])).toBe('unknown option --prot');
    expect(refusal(['--port'])).toBe('--port needs a value');
    expect(refusal(['--user-data', '--no-open'])).toBe('--user-data needs a value');
    expect(refusal(['--static='])).toBe('--static needs a value');
    expect(refusal(['--port', '1', '--port', '2'])).toBe('--port is given twice');
    expect(refusal(['--no-open=yes'])).toBe('--no-open takes no value');
    expect(refusal(['serve'])).toBe('unexpected argument "serve": options start with --');
  });

  it('picks the per-user data folder of each platform', () => {
    expect(defaultUserDataDir('linux', {}, '/home/ada')).toBe('/home/ada/.local/share/paydesk');
    expect(defaultUserDataDir('linux', { XDG_DATA_HOME: '/data/ada' }, '/home/ada')).toBe('/data/ada/paydesk');
    expect(defaultUserDataDir('linux', { XDG_DATA_HOME: 'relative' }, '/home/ada')).toBe('/home/ada/.local/share/paydesk');
    expect(defaultUserDataDir('darwin', {}, '/Users/ada')).toBe('/Users/ada/Library/Application Support/Paydesk');
    expect(defaultUserDataDir('win32', { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'C:\\Users\\ada')).toBe('C:\\Users\\ada\\AppData\\Roaming\\Paydesk');
  });
});
