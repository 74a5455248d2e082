/**
 * Where this desktop records: its own journal, or a team workspace. Kept in its own small file in
 * the data folder (`workspace.json`), not in the settings file, because it must be read before
 * anything else opens (the store decides where every entry goes) and because a settings file that
 * cannot be read is set aside and started afresh: a fresh start must never quietly move a team's
 * desktop back to its own journal. An unreadable choice is therefore an error at start, not a
 * default. The password is never here (OS keychain only).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { workspaceConnectionSchema, type WorkspaceConnection } from '../storage/postgres/connection';

export const WORKSPACE_CHOICE_FILE = 'workspace.json';

export type StoreChoice = { store: 'desktop' } | { store: 'workspace'; connection: WorkspaceConnection };

const choiceSchema = z.discriminatedUnion('store', [
  z.strictObject({ store: z.literal('desktop') }),
  z.strictObject({ store: z.literal('workspace'), connection: workspaceConnectionSchema }),
]);

export class StoreChoiceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreChoiceError';
  }
}

/** The saved choice; no file means this desktop only (every console before issue 24). */
export function readStoreChoice(userDataDir: string): StoreChoice {
  const path = join(userDataDir, WORKSPACE_CHOICE_FILE);
  if (!existsSync(path)) return { store: 'desktop' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new StoreChoiceError(`${path} cannot be read (${error instanceof Error ? error.message : 'unknown'}): fix or delete it to record on this desktop only.`);
  }
  const checked = choiceSchema.safeParse(parsed);
  if (!checked.success) {
    const where = checked.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`).join('; ');
    throw new StoreChoiceError(`${path} is not a workspace choice (${where}): fix or delete it to record on this desktop only.`);
  }
  return checked.data as StoreChoice;
}

/** Written whole then renamed: a crash leaves the old choice or the new one, never half of one. */
export function saveStoreChoice(userDataDir: string, choice: StoreChoice): void {
  const path = join(userDataDir, WORKSPACE_CHOICE_FILE);
  const checked = choiceSchema.parse(choice);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(checked, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}
