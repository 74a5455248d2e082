/** The preflight names each missing piece and the one command that installs them all. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, missingForTests, preflightMessage } from './preflight';

describe('test preflight', () => {
  it('finds nothing missing on a machine set up with npm run setup (this one)', () => {
    expect(missingForTests()).toEqual([]);
  });

  it('names Chromium, dbus-run-session and gnome-keyring-daemon when absent, and says to run npm run setup', () => {
    const missing = missingForTests({ chromium: '/nonexistent/chromium', path: '/nonexistent/bin', dbusSession: false });
    expect(missing).toHaveLength(3);
    expect(missing[0]).toContain('Chromium at /nonexistent/chromium');
    expect(missing[1]).toContain('dbus-run-session');
    expect(missing[2]).toContain('gnome-keyring-daemon');
    const message = preflightMessage(missing);
    expect(message).toContain('Install everything with: npm run setup');
    // With a D-Bus session already running, the session tools are not needed.
    expect(missingForTests({ chromium: CHROMIUM, path: '/nonexistent/bin', dbusSession: true })).toEqual([]);
  });

  it('names PostgreSQL when its server binaries are not installed', () => {
    const missing = missingForTests({ chromium: CHROMIUM, path: '/nonexistent/bin', dbusSession: true, postgresBin: null });
    expect(missing).toHaveLength(1);
    expect(missing[0]).toContain('Debian package "postgresql"');
  });

  it('installs from one package list: setup.sh and CI read scripts/apt-packages.txt, and it holds what the preflight names', () => {
    const list = readFileSync('scripts/apt-packages.txt', 'utf8');
    for (const pkg of ['chromium', 'dbus', 'gnome-keyring', 'postgresql']) expect(list).toMatch(new RegExp(`^${pkg}$`, 'm'));
    expect(readFileSync('scripts/setup.sh', 'utf8')).toContain('scripts/apt-packages.txt');
    expect(readFileSync('.ci/run', 'utf8')).toContain('bash scripts/setup.sh');
    expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.setup).toBe('bash scripts/setup.sh');
  });
});
