/**
 * The test harness's throwaway PostgreSQL: it starts from nothing in a temp folder, answers on its
 * unix socket only, and is gone when stopped.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBinDir } from '../../electron/console/storage/postgres/cluster';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 60_000);
afterAll(() => pg.stop());

describe('throwaway PostgreSQL cluster', () => {
  it('finds the server binaries in the versioned Debian folder (not on PATH)', () => {
    expect(postgresBinDir({ PATH: '/nowhere' })).toMatch(/\/usr\/lib\/postgresql\/\d+\/bin$/);
    expect(postgresBinDir({ PATH: '/nowhere', PAYDESK_PG_BIN: '/nowhere/either' })).toMatch(/\/usr\/lib\/postgresql\/\d+\/bin$/);
  });

  it('answers on a unix socket in its own temp folder, with no TCP listener', async () => {
    expect(existsSync(join(pg.cluster.host, `.s.PGSQL.${pg.cluster.port}`))).toBe(true);
    const client = await pg.connect();
    const { rows } = await client.query<{ listen: string; user: string }>(`SELECT current_setting('listen_addresses') AS listen, session_user AS user`);
    expect(rows[0]).toEqual({ listen: '', user: 'paydesk_root' });
    await client.end();
  });

  it('creates separate empty databases for separate tests', async () => {
    const a = await pg.createDatabase();
    const b = await pg.createDatabase();
    expect(a).not.toBe(b);
    const client = await pg.connect(undefined, a);
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'`);
    expect(rows[0]!.n).toBe('0');
    await client.end();
  });
});
