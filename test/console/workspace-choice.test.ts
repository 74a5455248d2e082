/**
 * Where a desktop records is read before anything opens: no file is this desktop only; a file that
 * cannot be read, or is not a choice, stops the start with its path and what to do, never a quiet
 * "this desktop only" (a team's desktop would record money in the wrong place). The password is
 * never in it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStoreChoice, saveStoreChoice, StoreChoiceError, WORKSPACE_CHOICE_FILE } from '../../electron/console/workspace/choice';
import { startConsoleHost } from '../../electron/console/workspace/console-host';
import { makeTempDir } from '../temp-dir';

const connection = { host: '127.0.0.1', port: 5433, database: 'paydesk_team', user: 'finance_demo', tls: 'off' as const };

describe('the workspace choice file', () => {
  it('no file: this desktop only; a saved choice reads back as saved, without any password field', () => {
    const dir = makeTempDir('paydesk-choice-');
    expect(readStoreChoice(dir)).toEqual({ store: 'desktop' });
    saveStoreChoice(dir, { store: 'workspace', connection });
    expect(readStoreChoice(dir)).toEqual({ store: 'workspace', connection });
    expect(() => saveStoreChoice(dir, { store: 'workspace', connection: { ...connection, password: 'x' } as never })).toThrow();
    expect(readFileSync(join(dir, WORKSPACE_CHOICE_FILE), 'utf8')).not.toContain('password');
  });

  it.each([
    ['{ not json', 'cannot be read'],
    ['{"store":"workspace"}', 'is not a workspace choice (connection:'],
    ['{"store":"workspace","connection":{"host":"db.example.com","port":5432,"database":"t","user":"u","tls":"off"}}', 'connection.tls: a server on another machine'],
    ['{"store":"cloud"}', 'is not a workspace choice'],
  ])('refuses %s at start instead of recording on this desktop', async (text, words) => {
    const dir = makeTempDir('paydesk-choice-');
    writeFileSync(join(dir, WORKSPACE_CHOICE_FILE), text);
    expect(() => readStoreChoice(dir)).toThrow(StoreChoiceError);
    expect(() => readStoreChoice(dir)).toThrow(words);
    await expect(startConsoleHost({ userDataDir: dir, transport: 'browser', allowLive: false, version: '0.0.0-test', engine: false })).rejects.toThrow(`${join(dir, WORKSPACE_CHOICE_FILE)}`);
  });
});
