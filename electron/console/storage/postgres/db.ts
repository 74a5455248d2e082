/**
 * Connections to a team workspace: a node-postgres pool whose bigint columns (times in ms, money
 * in the smallest unit, counts) come back as numbers, like SQLite's, and one helper for "one
 * transaction per operation".
 */
import pg from 'pg';

const INT8 = 20;

/** bigint as a JS number: every bigint the workspace stores (ms, amounts, counts) is far below 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export type WorkspacePool = pg.Pool;
export type Queryable = pg.ClientBase | pg.Pool;

export function openWorkspacePool(config: pg.PoolConfig): WorkspacePool {
  const pool = new pg.Pool({ max: 8, ...config, types });
  // An idle connection the server ends (restart, network) must not crash the console: the next
  // query gets a fresh connection or a clear error.
  pool.on('error', () => undefined);
  // The pool listens to idle connections only: one the server ends while it is checked out (in a
  // transaction) would throw its error out of the process. Its statement fails with it anyway.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Runs `work` in one transaction on one connection; rolled back if it throws. */
export async function inTransaction<T>(pool: WorkspacePool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
