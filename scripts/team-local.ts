/**
 * `npm run team:local`: starts (or starts again) a team workspace on this machine and prints the
 * logins two consoles use. `npm run team:local -- --stop` stops it; `--dir <folder>` picks the
 * folder (default ~/.paydesk/team-pg; as root /var/tmp/paydesk-team-pg, a folder the `postgres`
 * user the server then runs as can reach).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { senderCommand, startLocalWorkspace, stopLocalWorkspace } from '../electron/console/storage/postgres/local-workspace';

const USAGE = 'usage: npm run team:local [-- --dir <folder>] [-- --stop]';

function parse(argv: string[]): { dir: string; stop: boolean } {
  let dir = process.getuid?.() === 0 ? '/var/tmp/paydesk-team-pg' : join(homedir(), '.paydesk', 'team-pg');
  let stop = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--stop') stop = true;
    else if (arg === '--dir' && argv[i + 1] && !argv[i + 1]!.startsWith('--')) dir = resolve(argv[(i += 1)]!);
    else throw new Error(`unexpected argument ${JSON.stringify(arg)}\n${USAGE}`);
  }
  return { dir, stop };
}

async function main(): Promise<void> {
  const { dir, stop } = parse(process.argv.slice(2));
  if (stop) {
    console.log(stopLocalWorkspace(dir) ? `team workspace in ${dir} stopped.` : `no team workspace runs in ${dir}.`);
    return;
  }
  const workspace = await startLocalWorkspace(dir);
  console.log(`Team workspace running: postgres on 127.0.0.1:${workspace.port}, database ${workspace.database}, folder ${dir}`);
  if (workspace.migrated.length > 0) console.log(`Schema updated to version ${workspace.migrated.at(-1)}.`);
  console.log('\nOne login per role, and a second admin who approves what the first asks (each password is in a file of the folder, readable by you only):');
  for (const person of workspace.people) console.log(`  ${person.role.padEnd(16)} ${person.login.padEnd(13)} password in ${person.passwordFile}`);
  console.log(`
Two consoles on one machine, each with its own user-data folder, on this workspace (or choose it in
Settings → Team workspace; the password is then kept in the OS keychain):
  PAYDESK_WORKSPACE_PASSWORD="$(cat ${workspace.people[0]!.passwordFile})" npm run start:browser -- --user-data /tmp/paydesk-desk-a --workspace postgres://${workspace.people[0]!.login}@127.0.0.1:${workspace.port}/${workspace.database}
  PAYDESK_WORKSPACE_PASSWORD="$(cat ${workspace.people[1]!.passwordFile})" npm run start:browser -- --user-data /tmp/paydesk-desk-b --workspace postgres://${workspace.people[1]!.login}@127.0.0.1:${workspace.port}/${workspace.database}
The team sender, serving one sandbox for the team (its keys stay with it; the consoles then choose
the Team sandbox profile and their payouts are sent by the sender):
  ${senderCommand(workspace)}
Try the roles now with psql (support may not change team settings):
  PGPASSWORD="$(cat ${workspace.people[1]!.passwordFile})" psql -h 127.0.0.1 -p ${workspace.port} -U ${workspace.people[1]!.login} ${workspace.database} -c "INSERT INTO team_settings VALUES ('k', '1', 1)"
Stop it with: npm run team:local -- --stop${process.argv.includes('--dir') ? ` --dir ${dir}` : ''}`);
}

main().catch((error: unknown) => {
  console.error(`team:local: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
