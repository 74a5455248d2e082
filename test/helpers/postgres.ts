/**
 * A throwaway PostgreSQL for a test file, started the way scripts/with-keyring.sh starts the
 * keyring: initdb in a temp folder (test/temp-dir.ts removes it when the file ends), pg_ctl on a
 * free port, the unix socket in that folder, no TCP. As root (CI) the server runs as `postgres`.
 *
 *   const pg = await startTestPostgres();   // in beforeAll
 *   const client = await pg.connect('paydesk_test');
 *   afterAll(() => pg.stop());
 */
import pg from 'pg';
import { startCluster, type RunningCluster } from '../../electron/console/storage/postgres/cluster';
import { makeTempDir } from '../temp-dir';

export const TEST_SUPERUSER = 'paydesk_root';

export interface TestPostgres {
  cluster: RunningCluster;
  /** Connection settings for `user` on `database` (the socket folder as host). */
  config(user?: string, database?: string): pg.ClientConfig;
  /** A connected client; closed by stop(). */
  connect(user?: string, database?: string): Promise<pg.Client>;
  /** A fresh, empty database owned by the superuser; returns its name. */
  createDatabase(prefix?: string): Promise<string>;
  /** Closes every client made here, then stops the server. */
  stop(): Promise<void>;
}

let databases = 0;

export async function startTestPostgres(): Promise<TestPostgres> {
  const dir = makeTempDir('paydesk-pg-');
  const cluster = await startCluster({ dir, superuser: TEST_SUPERUSER, auth: { method: 'trust' }, durable: false });
  // A test process that dies without its afterAll must not leave a server behind.
  const onExit = () => cluster.stop();
  process.once('exit', onExit);
  const clients = new Set<pg.Client>();
  const config = (user = TEST_SUPERUSER, database = 'postgres'): pg.ClientConfig => ({ host: cluster.host, port: cluster.port, user, database });
  async function connect(user?: string, database?: string): Promise<pg.Client> {
    const client = new pg.Client(config(user, database));
    await client.connect();
    // A connection the server ends (a test's pg_terminate_backend) must not crash the test process.
    client.on('error', () => undefined);
    clients.add(client);
    client.once('end', () => clients.delete(client));
    return client;
  }
  return {
    cluster,
    config,
    connect,
    async createDatabase(prefix = 'paydesk_test') {
      databases += 1;
      const name = `${prefix}_${process.pid}_${databases}`;
      const admin = await connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return name;
    },
    async stop() {
      await Promise.all([...clients].map((client) => client.end().catch(() => undefined)));
      process.removeListener('exit', onExit);
      cluster.stop();
    },
  };
}
