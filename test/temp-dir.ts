/**
 * Temp folders for tests, removed after the test file that made them: every folder made here is
 * registered, and the setup file (test/temp-dirs.setup.ts, in vite.config.ts) removes them all in
 * an afterAll that runs after the file's own hooks, so a test never leaves `paydesk-*` folders in
 * the system temp folder, whatever hook or test made them and even when it fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created = new Set<string>();

/** A fresh folder `<system temp>/<prefix>XXXXXX`, removed when the current test file ends. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.add(dir);
  return dir;
}

/** Removes every folder made by `makeTempDir` so far (open SQLite files included: unlinked on POSIX). */
export function removeTempDirs(): void {
  for (const dir of created) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  created.clear();
}
