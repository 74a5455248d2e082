/**
 * `npm run team:import` flags: each mistake gets a precise message (nothing is guessed), a
 * password never rides on the command line, and a remote server is reached over verified TLS.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseImportArgs } from '../../scripts/team-import';
import { makeTempDir } from '../temp-dir';

const dir = makeTempDir('paydesk-team-import-');
const journal = join(dir, 'journal.db');
writeFileSync(journal, '');
const passwordFile = join(dir, 'pw');
writeFileSync(passwordFile, 's3cret\n');
const parse = (...argv: string[]) => parseImportArgs(argv, {});

describe('team:import flags', () => {
  it('reads a local workspace, a unix socket folder and a remote one (TLS verified by default)', () => {
    expect(parse('--journal', journal, '--workspace', 'postgres://fatou@127.0.0.1:5433/paydesk_team', '--password-file', passwordFile)).toEqual({
      journal,
      connection: { host: '127.0.0.1', port: 5433, database: 'paydesk_team', user: 'fatou', tls: 'off' },
      password: 's3cret',
      json: false,
    });
    expect(parse('--journal', journal, '--workspace', 'postgres://fatou@%2Ftmp%2Fpg/ws', '--json').connection).toMatchObject({ host: '/tmp/pg', port: 5432, tls: 'off' });
    expect(parse('--journal', journal, '--workspace', 'postgresql://fatou@db.example.com/ws').connection).toMatchObject({ host: 'db.example.com', tls: 'verify' });
    expect(parseImportArgs(['--journal', journal, '--workspace', 'postgres://fatou@localhost/ws'], { PGPASSWORD: 'env-pw' }).password).toBe('env-pw');
  });

  it.each([
    [[], /--journal is missing/],
    [['--journal', journal], /--workspace is missing/],
    [['--journal'], /--journal needs a value/],
    [['--journal', join(dir, 'nope.db'), '--workspace', 'postgres://a@localhost/b'], /--journal .*nope\.db: no such file/],
    [['--journal', journal, '--journal', journal], /--journal is given twice/],
    [['--journal', journal, '--workspace', 'db.example.com/ws'], /is not a URL/],
    [['--journal', journal, '--workspace', 'mysql://a@localhost/b'], /must start with postgres:\/\//],
    [['--journal', journal, '--workspace', 'postgres://a:pw@localhost/b'], /must not hold a password .*--password-file/],
    [['--journal', journal, '--workspace', 'postgres://localhost/b'], /names no login/],
    [['--journal', journal, '--workspace', 'postgres://a@localhost/'], /names no database/],
    [['--journal', journal, '--workspace', 'postgres://a@localhost/b?sslmode=disable'], /takes no \?options/],
    [['--journal', journal, '--workspace', 'postgres://a@db.example.com/b', '--tls', 'off'], /tls: a server on another machine must be reached over TLS/],
    [['--journal', journal, '--workspace', 'postgres://a@localhost/b', '--tls', 'maybe'], /--tls "maybe": write verify or off/],
    [['--journal', journal, '--workspace', 'postgres://a@localhost/b', '--ca', join(dir, 'ca.pem')], /--ca .*ca\.pem: no such file/],
    [['--journal', journal, '--workspace', 'postgres://a@localhost/b;drop/x'], /--workspace: database: a database name/],
    [['--journal', journal, '--workspace', 'postgres://a@localhost/b', '--force'], /unknown argument "--force"/],
  ])('refuses %j with a precise message', (argv, message) => {
    expect(() => parse(...argv)).toThrow(message);
  });
});
