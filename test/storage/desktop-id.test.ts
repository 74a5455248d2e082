/**
 * The desktop an entry was written on (workspace migration 36; docs/decisions/local-sandbox-follow-ups.md):
 * the data folder's own id (electron/console/desktop-id.ts), sent as the connection setting
 * `paydesk.desktop` and stamped by the database on each new entry. Entries written before the
 * migration keep no desktop (the migrating desktop's id is not given to them), so they are
 * followed up by their login as before.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP_FILE, desktopConnectionOptions, desktopIdOf } from '../../electron/console/desktop-id';
import { poolConfig } from '../../electron/console/storage/postgres/connection';
import { migrateWorkspace } from '../../electron/console/storage/postgres/migrate';
import { PG_MIGRATIONS } from '../../electron/console/storage/postgres/migrations';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

let server: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), 'paydesk-desktop-id-'));
beforeAll(async () => {
  server = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const entry = (client: pg.Client, id: string) =>
  client.query(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
       customer_first_name, customer_last_name, customer_email, created_at, updated_at)
     VALUES ($1, 'local-sandbox', 'Local sandbox', 'sandbox', 'payment', 'known', $1, 700, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Ngo', 'awa@example.com', 1, 1)`,
    [id],
  );

describe("an entry's desktop", () => {
  it('is stamped from the connection on new entries, never on entries written before migration 36', async () => {
    const database = await server.createDatabase();
    const desktopId = desktopIdOf(dir);
    const before = await server.connect(undefined, database);
    await migrateWorkspace(before, PG_MIGRATIONS.filter((m) => m.version < 36));
    await entry(before, 'older');
    await before.end();

    // The desktop that migrates names itself: its id goes to its own new entries only.
    const desktop = new pg.Client({ ...server.config(undefined, database), options: desktopConnectionOptions(desktopId) });
    await desktop.connect();
    try {
      expect((await migrateWorkspace(desktop))[0]).toBe(36);
      await entry(desktop, 'newer');
      const rows = (await desktop.query<{ id: string; desktop_id: string | null }>('SELECT id, desktop_id FROM entries ORDER BY id')).rows;
      expect(rows).toEqual([
        { id: 'newer', desktop_id: desktopId },
        { id: 'older', desktop_id: null },
      ]);
    } finally {
      await desktop.end();
    }
    // A connection naming no desktop stamps none.
    const none = await server.connect(undefined, database);
    await entry(none, 'nameless');
    expect((await none.query('SELECT desktop_id FROM entries WHERE id = $1', ['nameless'])).rows[0].desktop_id).toBeNull();
    await none.end();
  });

  it("is the data folder's: kept in desktop.json, made again when the file is not one", () => {
    const id = desktopIdOf(dir);
    expect(id).toMatch(/^desktop-[0-9a-f-]{36}$/);
    expect(desktopIdOf(dir)).toBe(id);
    expect(JSON.parse(readFileSync(join(dir, DESKTOP_FILE), 'utf8'))).toEqual({ id });
    writeFileSync(join(dir, DESKTOP_FILE), '{"id": "desktop-x -c role=paydesk_admin"}');
    const fresh = desktopIdOf(dir);
    expect(fresh).not.toBe(id);
    expect(fresh).toMatch(/^desktop-[0-9a-f-]{36}$/);
  });

  it('goes into the connection as one startup option, and nothing that is not an id does', () => {
    const id = desktopIdOf(dir);
    const connection = { host: '127.0.0.1', port: 5432, database: 'team', user: 'fatou', tls: 'off' as const };
    expect(poolConfig(connection, 'pw', id).options).toBe(`-c paydesk.desktop=${id}`);
    expect(poolConfig(connection, 'pw').options).toBeUndefined();
    expect(() => desktopConnectionOptions('desktop-x -c role=paydesk_admin')).toThrow(/not a desktop id/);
  });
});
