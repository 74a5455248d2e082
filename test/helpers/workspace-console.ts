/**
 * One desktop of a team, as a child process: a console runtime (createConsoleRuntime) recording in
 * a team workspace (openStorage: the workspace's port, logged in as one person), with one profile
 * that points at the shared engine the test started, its keys in an in-memory keyring. Used by
 * test/console/two-desktops-one-batch.test.ts, which SIGKILLs one of them mid-batch.
 *
 * The batch handlers still read the desktop's SQLite journal (batchport24 moves them to the port),
 * so the runner is driven directly, as the handlers drive it: `run` is Start/Resume (the runner
 * writes `sending` itself), `pause` writes `paused` through the port before stopping the runner,
 * as batch-controls.ts pauseBatch does.
 *
 * env PAYDESK_DESKTOP: JSON { userDataDir, workspace: pg config, baseUrl, profileId, keys, leaseMs, watchMs }.
 * stdin, one command a line: `run <batchId>`, `pause <batchId>`, `close`.
 * stdout, one JSON line per event: ready, running, ended (with the batch's state), paused, closed, error.
 * A child started with node itself and tsx as a loader (`--import tsx`): the tsx CLI would run the
 * script in a grandchild that SIGKILL misses.
 */
import { createInterface } from 'node:readline';
import type pg from 'pg';
import { createConsoleRuntime } from '../../electron/console/runtime';
import type { SettingsBackend, SettingsDocument } from '../../electron/console/settings';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { memoryKeyring } from './memory-keyring';

export interface DesktopOptions {
  userDataDir: string;
  workspace: pg.ClientConfig;
  baseUrl: string;
  profileId: string;
  keys: { type: 'payment' | 'payout'; publicKey: string; secretKey: string }[];
  leaseMs: number;
  watchMs: number;
}

const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

function settingsWith(document: SettingsDocument): SettingsBackend {
  let stored: SettingsDocument = document;
  return {
    path: null,
    read: () => structuredClone(stored),
    write(next) {
      stored = structuredClone(next);
    },
  };
}

async function main(): Promise<void> {
  const options = JSON.parse(process.env.PAYDESK_DESKTOP ?? 'null') as DesktopOptions | null;
  if (!options) throw new Error('PAYDESK_DESKTOP is not set');
  const keyOf = (type: 'payment' | 'payout') => options.keys.find((key) => key.type === type)!;
  // Every desktop names the team's profile alike: the batch records the profile id it is sent with.
  const settingsBackend = settingsWith({
    version: 1,
    activeProfileId: options.profileId,
    profiles: [
      {
        id: options.profileId,
        name: 'Team sandbox',
        baseUrl: options.baseUrl,
        environment: 'sandbox',
        headerWord: 'SVC',
        paymentPublicKey: keyOf('payment').publicKey,
        payoutPublicKey: keyOf('payout').publicKey,
      },
    ],
  });
  const runtime = await createConsoleRuntime({
    userDataDir: options.userDataDir,
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    settingsBackend,
    keyring: memoryKeyring(),
    client: { retry: { attempts: 1 } },
    openStorage: () => openWorkspaceStore(options.workspace),
    batchClaims: { leaseMs: options.leaseMs, watchMs: options.watchMs },
  });
  for (const key of options.keys) {
    const saved = await runtime.handlers['secrets:set']({ profileId: options.profileId, keyType: key.type, secret: key.secretKey });
    if (!saved.ok) throw new Error(saved.error.message);
  }
  const info = await runtime.handlers['app:info']({});
  say({ event: 'ready', notices: info.ok ? (info.value.notices ?? []).map((notice) => notice.code) : [] });

  const { batchRunner: runner, storage } = runtime;
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [command, batchId] = line.trim().split(/\s+/);
    if (command === 'close') break;
    if (!batchId) throw new Error(`a command without its batch: ${line}`);
    if (command === 'run') {
      runner.run(batchId);
      say({ event: 'running', batchId });
      void runner
        .settled(batchId)
        .then(async () => say({ event: 'ended', batchId, state: (await storage.batches.summary(batchId))?.state ?? null }))
        .catch((error: unknown) => say({ event: 'error', message: error instanceof Error ? error.message : String(error) }));
    } else if (command === 'pause') {
      await storage.batches.setState(batchId, 'paused', Date.now(), { reason: 'Paused by a desktop of the team.' });
      runner.stop(batchId, 'pause');
      say({ event: 'paused', batchId });
    } else {
      throw new Error(`unknown command ${command}`);
    }
  }
  await runtime.close();
  say({ event: 'closed' });
}

main().catch((error: unknown) => {
  say({ event: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exit(3);
});
