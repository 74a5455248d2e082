/**
 * The README's "Try the team sender in two commands": `npm run team:local` prints the second
 * command (senderCommand) exactly as the README writes it, with its port and folder; that command,
 * run as printed (its password read from the file it names), starts a sender serving the team
 * sandbox; two consoles on the workspace as finance_demo choose Team sandbox and their payouts are
 * sent by the sender, once each.
 */
import { chmodSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { senderCommand, startLocalWorkspace, stopLocalWorkspace, type LocalWorkspace } from '../../electron/console/storage/postgres/local-workspace';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { LOCAL_SANDBOX_ID, type SettingsDocument } from '../../electron/console/settings';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { TEAM_SANDBOX } from '../../electron/console/storage/postgres/schema-names';
import { memoryKeyring } from '../helpers/memory-keyring';
import { spawnSender, type SenderProcess } from '../helpers/sender-process';
import { makeTempDir } from '../temp-dir';
import { expectOk } from '../console/helpers';

const parent = makeTempDir('paydesk-team-local-sender-');
// As root the server runs as `postgres`, which must be able to pass through the parent folder.
chmodSync(parent, 0o711);
const dir = join(parent, 'team-pg');
let sender: SenderProcess | null = null;
const consoles: ConsoleRuntime[] = [];

afterAll(async () => {
  sender?.child.kill('SIGKILL');
  await sender?.exited;
  for (const desk of consoles) await desk.close();
  stopLocalWorkspace(dir);
});

/** The README's second command, with this workspace's port and folder in place of PORT and the user's folder. */
function readmeSenderCommand(workspace: LocalWorkspace): string {
  const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Try the team sender in two commands'));
  const line = section.split('\n').find((text) => text.includes('npm run sender --'))!.trim();
  return line.replaceAll('~/.paydesk/team-pg', workspace.dir).replaceAll('PORT', String(workspace.port));
}

async function consoleOf(workspace: LocalWorkspace, name: string): Promise<ConsoleRuntime> {
  const finance = workspace.people.find((person) => person.login === 'finance_demo')!;
  let settings: SettingsDocument = { version: 1, activeProfileId: LOCAL_SANDBOX_ID, profiles: [] };
  const desk = await createConsoleRuntime({
    userDataDir: join(parent, name),
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    settingsBackend: { path: null, read: () => structuredClone(settings), write: (next) => void (settings = structuredClone(next)) },
    keyring: memoryKeyring(),
    client: { retry: { attempts: 1 } },
    openStorage: () => openWorkspaceStore({ host: workspace.host, port: workspace.port, user: finance.login, password: finance.password, database: workspace.database }),
  });
  consoles.push(desk);
  return desk;
}

it('prints the README\'s second command, which starts a sender two consoles send through', async () => {
  const workspace = await startLocalWorkspace(dir, { durable: false });
  const printed = senderCommand(workspace);
  expect(printed).toBe(readmeSenderCommand(workspace));

  // Run as printed: the password from the file it names, the arguments after `npm run sender --`.
  const match = /^PAYDESK_WORKSPACE_PASSWORD="\$\(cat (\S+)\)" npm run sender -- (.+)$/.exec(printed)!;
  const password = readFileSync(match[1]!, 'utf8').trim();
  sender = spawnSender('team-local-sender', match[2]!.split(' '), { PAYDESK_WORKSPACE_PASSWORD: password });
  await sender.next((event) => event.event === 'ready');

  const amounts = new Map<string, number>();
  for (const [name, externalId] of [['desk-a', 'LOCAL-A-1'], ['desk-b', 'LOCAL-B-1']] as const) {
    const desk = await consoleOf(workspace, name);
    expectOk(await desk.handlers['profiles:activate']({ id: TEAM_SANDBOX.profileId }));
    const request = { payment_method: 'momo_cm', amount: 1_200, phone_number: '+237670000012', customer: { first_name: 'Awa', last_name: 'Team', email: 'awa@example.com' }, description: 'Two commands', external_id: externalId };
    const quote = expectOk(await desk.handlers['payouts:prepare']({ request }));
    const entry = expectOk(await desk.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }));
    expect(entry.transactionId).not.toBeNull();
    amounts.set(externalId, entry.amount);
    // The sender answered this desktop's ask (its line may follow the desktop's read of the answer).
    expect(await sender.next((event) => event.event === 'ask-answered' && event.entryId === entry.id)).toMatchObject({ state: 'done' });
  }
  expect(Object.fromEntries(amounts)).toEqual({ 'LOCAL-A-1': 1_200, 'LOCAL-B-1': 1_200 });
  expect(sender.events.filter((event) => event.event === 'ask-answered')).toHaveLength(2);

  sender.child.kill('SIGTERM');
  expect(await sender.exited).toBe(0);
  sender = null;
}, 120_000);
