/**
 * The yardstick for the create target of `bench:engine`: the least a signed, validated, durable create
 * can cost on the same stack (fastify 5, the shared zod schema, the engine's signature check,
 * better-sqlite3 in WAL mode with group commit). One INSERT per request and nothing else: no key
 * lookup, no external_id check, no provider, no timeline, no settlement, no hooks. Whatever the
 * engine does beyond this is its own cost; this line shows how much of the target the stack leaves.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { transactionRequestSchema } from '../shared/contract';
import { newTransactionId } from '../packages/sandbox/src/storage/ids';
import { verifySignature } from '@paydesk/sandbox';
import { benchTempDir } from './temp';

export async function startFloorServer(key: { publicKey: string; secretKey: string }): Promise<{ url: string; stop: () => Promise<void> }> {
  const temp = benchTempDir('paydesk-bench-floor-');
  const dir = temp.path;
  const db = new Database(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE payments (id TEXT PRIMARY KEY, external_id TEXT UNIQUE, amount INTEGER NOT NULL, phone_number TEXT NOT NULL,
    customer TEXT NOT NULL, metadata TEXT, created_at INTEGER NOT NULL)`);
  const insert = db.prepare('INSERT INTO payments VALUES (?, ?, ?, ?, ?, ?, ?)');
  let group: Promise<void> | null = null;

  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, function keepRawBody(_request, body, done) {
    done(null, body);
  });
  app.post('/v1/payments', async function floorCreate(request, reply) {
    const body = request.body as Buffer;
    const signed = verifySignature(
      key.secretKey,
      { publicKey: key.publicKey, timestamp: String(request.headers['x-svc-timestamp']), method: 'POST', path: '/v1/payments', payload: body },
      String(request.headers['x-svc-signature']),
    );
    if (request.headers.authorization !== key.publicKey || !signed) return reply.code(401).send({ success: false, message: 'Unauthorized.', code: 'INVALID_SIGNATURE', errors: [] });
    const parsed = transactionRequestSchema.safeParse(JSON.parse(body.toString('utf8')));
    if (!parsed.success) return reply.code(422).send({ success: false, message: 'Invalid.', code: 'VALIDATION_ERROR', errors: [] });
    const payment = parsed.data;
    if (group === null) {
      db.exec('BEGIN IMMEDIATE');
      group = new Promise<void>((resolve) => {
        setImmediate(() => {
          db.exec('COMMIT');
          group = null;
          resolve();
        });
      });
    }
    const now = Date.now() * 1000;
    const id = newTransactionId(now);
    insert.run(id, payment.external_id ?? null, payment.amount, payment.phone_number, JSON.stringify(payment.customer), payment.metadata === undefined ? null : JSON.stringify(payment.metadata), now);
    await group;
    return reply.code(200).send({ success: true, message: 'Payment initiated.', data: { transaction_id: id, external_id: payment.external_id ?? null, status: 'processing', amount: payment.amount } });
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    async stop() {
      await app.close();
      db.close();
      temp.remove();
    },
  };
}
