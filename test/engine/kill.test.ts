/**
 * A killed engine loses nothing it answered (docs/decisions/engine-wal-synchronous-normal-kill-loses-nothing.md):
 * the engine runs in its own process on a WAL file with synchronous = NORMAL, takes concurrent creates (grouped
 * commits, no savepoint per create) while it settles earlier ones, and is SIGKILLed the moment the last answer
 * arrives. A new engine on the same file has every answered create, whole: its row, its timeline and its provider
 * request, and each external_id once.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../electron/client';
import { startEngine } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { paymentBody, tempDir } from './helpers';

const temp = tempDir();
afterAll(() => temp.cleanup());

const CLI = join(process.cwd(), 'packages', 'sandbox', 'src', 'cli.ts');

describe('an engine killed while it takes creates', () => {
  it('keeps every create it answered, whole, after SIGKILL', async () => {
    const file = join(temp.dir, 'killed.db');
    // The engine itself in the child (node --import tsx), so the kill reaches it, not a wrapper.
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--json', '--port', '0', '--db', file, '--settle-ms', '0', '--rate-limit', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    const line = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (chunk) => {
        buffer += chunk;
        const newline = buffer.indexOf('\n');
        if (newline !== -1) resolve(buffer.slice(0, newline));
      });
      child.on('close', (code) => reject(new Error(`exited ${code}`)));
    });
    const ready = JSON.parse(line) as { url: string; applications: { keys: { environment: string; type: string; publicKey: string; secretKey: string }[] }[] };
    const keys = ready.applications[0]?.keys ?? [];
    const sandbox = (type: string) => keys.find((key) => key.environment === 'sandbox' && key.type === type);
    const client = createClient(
      { baseUrl: ready.url, environment: 'sandbox', paymentPublicKey: sandbox('payment')?.publicKey ?? '', payoutPublicKey: sandbox('payout')?.publicKey ?? '' },
      async (publicKey) => keys.find((key) => key.publicKey === publicKey)?.secretKey ?? '',
      { retry: { attempts: 1 } },
    );
    const answered = new Map<string, string>();
    try {
      // Rounds of concurrent creates (commit groups), the earlier ones settling meanwhile (settle 0).
      for (let round = 0; round < 5; round += 1) {
        const bodies = Array.from({ length: 16 }, () => paymentBody());
        const results = await Promise.all(bodies.map((body) => client.createPayment(body)));
        results.forEach((result, index) => {
          if (result.kind === 'success') answered.set(bodies[index]!.external_id!, result.data.transaction_id);
        });
      }
    } finally {
      child.kill('SIGKILL');
      await client.close();
    }
    expect(await exited).toBe('SIGKILL');
    expect(answered.size).toBe(80);

    const again = await startEngine({ db: file, port: 0, settleMs: 0 });
    try {
      const { db } = engineInternals(again);
      const rowsOf = db.prepare('SELECT id FROM transactions WHERE external_id = ?').pluck();
      const timelineOf = db.prepare('SELECT status FROM transaction_events WHERE transaction_id = ? ORDER BY id').pluck();
      const providerOf = db.prepare('SELECT COUNT(*) FROM provider_requests WHERE transaction_id = ?').pluck();
      for (const [externalId, id] of answered) {
        expect(rowsOf.all(externalId)).toEqual([id]);
        expect((timelineOf.all(id) as string[]).slice(0, 2)).toEqual(['initiated', 'processing']);
        expect(providerOf.get(id)).toBe(1);
      }
    } finally {
      await again.stop();
    }
  });
});
