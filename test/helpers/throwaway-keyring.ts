/**
 * A D-Bus session of its own with a gnome-keyring in it, for tests that stop or pause the keychain
 * (the session of scripts/with-keyring.sh is shared by every test file of a run: it stays up).
 *
 * The bus has no service folders, so nothing is D-Bus-activated behind the test's back: the
 * Secret Service is the daemon started here, whose pid `pause` (SIGSTOP) and `resume` (SIGCONT)
 * act on. `use` points this process's D-Bus address at it (the keyring library reads it natively).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../temp-dir';

export interface ThrowawayKeyring {
  address: string;
  daemonPid: number;
  /** Points this process at the throwaway session; returns the way back. */
  use(): () => void;
  /** How many connections the bus has now (unique names), the daemon's and dbus-send's own included. */
  connections(): number;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Whether the Secret Service's name has an owner on the bus (asked with dbus-send). */
function secretServiceOwned(address: string): boolean {
  const answer = spawnSync('dbus-send', ['--bus=' + address, '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'], { encoding: 'utf8' });
  return /boolean true/.test(answer.stdout);
}

export async function startThrowawayKeyring(): Promise<ThrowawayKeyring> {
  const dir = makeTempDir('paydesk-keyring-');
  const address = `unix:path=${join(dir, 'bus')}`;
  const config = join(dir, 'bus.conf');
  writeFileSync(
    config,
    `<busconfig><type>session</type><listen>${address}</listen><policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`,
  );
  const bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  // The daemon prints its address once it listens.
  await new Promise<void>((resolve, reject) => {
    bus.stdout!.once('data', () => resolve());
    bus.once('exit', (code) => reject(new Error(`dbus-daemon exited (${code})`)));
  });
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, XDG_DATA_HOME: join(dir, 'data'), XDG_RUNTIME_DIR: dir };
  const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
  keyring.stdin!.end('paydesk-throwaway-keyring');
  // Ready once it owns the Secret Service's name on the bus.
  while (!secretServiceOwned(address)) {
    if (keyring.exitCode !== null) throw new Error(`gnome-keyring-daemon exited (${keyring.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    address,
    daemonPid: keyring.pid!,
    use() {
      const before = process.env.DBUS_SESSION_BUS_ADDRESS;
      process.env.DBUS_SESSION_BUS_ADDRESS = address;
      return () => {
        if (before === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
        else process.env.DBUS_SESSION_BUS_ADDRESS = before;
      };
    },
    connections() {
      const answer = spawnSync('dbus-send', ['--bus=' + address, '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.ListNames'], { encoding: 'utf8' });
      return (answer.stdout.match(/string ":/g) ?? []).length;
    },
    pause() {
      process.kill(keyring.pid!, 'SIGSTOP');
    },
    resume() {
      process.kill(keyring.pid!, 'SIGCONT');
    },
    async stop() {
      if (keyring.exitCode === null && keyring.signalCode === null) {
        process.kill(keyring.pid!, 'SIGCONT');
        keyring.kill('SIGTERM');
      }
      await exited(keyring);
      bus.kill('SIGTERM');
      await exited(bus);
    },
  };
}
