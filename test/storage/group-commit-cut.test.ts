/**
 * The group commit's connection cut at its BEGIN (issue 24 item 7: a connection lost mid-batch):
 * every write of the group is refused with the socket's error, nothing is written, and no query's
 * failure is left unhandled (an unhandled rejection ends the console's process; vitest fails the
 * run on one). A TCP relay in front of a real PostgreSQL cuts the connection when the group's
 * BEGIN goes through it, so the moment is the same every run.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { workspaceGroupCommit } from '../../electron/console/storage/postgres/group-commit';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

let server: TestPostgres;
let relay: Server;
let admin: pg.Client;
let database: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = await startTestPostgres();
  database = await server.createDatabase('paydesk_cut');
  admin = await server.connect(undefined, database);
  await admin.query('CREATE TABLE written (n int PRIMARY KEY)');
  const { host, port } = server.config(undefined, database);
  // Passes the connection's start and login through, and cuts both sides at the first BEGIN.
  relay = createServer((client) => {
    const backend = connect({ path: join(String(host), `.s.PGSQL.${port}`) });
    for (const socket of [client, backend]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes('BEGIN')) {
        client.destroy();
        backend.destroy();
      } else backend.write(chunk);
    });
    backend.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => backend.destroy());
    backend.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
}, 60_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => relay?.close(resolve));
  await server?.stop();
});

it('refuses every write of a group whose connection is cut at its BEGIN, writes nothing, and leaves no failure unhandled', async () => {
  const { user } = server.config(undefined, database);
  const group = workspaceGroupCommit({ host: '127.0.0.1', port: (relay.address() as AddressInfo).port, user, database });
  const writes = [1, 2, 3].map((n) => group.write({ work: async (c) => void (await c.query('INSERT INTO written VALUES ($1)', [n])) }));
  for (const write of writes) await expect(write).rejects.toThrow();
  expect((await admin.query('SELECT count(*)::int AS n FROM written')).rows[0].n).toBe(0);
  // Let the connection's last events run: an unhandled rejection would be reported now.
  await new Promise((resolve) => setImmediate(resolve));
  await group.close().catch(() => undefined);
});
