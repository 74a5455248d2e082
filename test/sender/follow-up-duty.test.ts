/**
 * The team senders' follow-up duty (electron/sender/follow-up-duty.ts;
 * docs/decisions/one-follow-up-round-per-team.md) on a throwaway PostgreSQL, as the logins that try:
 * one sender holds it, another is refused it until the holder's connection ends (the server releases
 * the lock), then takes it; a lock taken in raw SQL by a finance login is no duty: the sender
 * follows up anyway and says so.
 */
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FOLLOW_UP_DUTY_LOCK, openFollowUpDuty, type SenderDuty } from '../../electron/sender/follow-up-duty';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';

let workspaces: TestWorkspaces;
let database: string;
const duties: SenderDuty[] = [];

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  const root = await workspaces.server.connect(undefined, database);
  for (const login of ['duty_one', 'duty_two']) {
    await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${login}') THEN CREATE ROLE ${login} LOGIN; END IF; END $$`);
    await root.query(`GRANT paydesk_sender TO ${login}`);
  }
  await root.end();
}, 60_000);

afterAll(async () => {
  for (const duty of duties) await duty.close();
  await workspaces?.stop();
});

function dutyOf(login: string): { duty: SenderDuty; taken: number[]; faults: string[]; changes: boolean[] } {
  const seen = { taken: [] as number[], faults: [] as string[], changes: [] as boolean[] };
  const duty = openFollowUpDuty(workspaces.server.config(login, database), {
    everyMs: 60_000,
    taken: () => seen.taken.push(1),
    changed: (held) => seen.changes.push(held),
    fault: (message) => seen.faults.push(message),
  });
  duties.push(duty);
  return { duty, ...seen };
}

it('gives the duty to one sender at a time; the holder\'s connection ended, the other takes it', async () => {
  const one = dutyOf('duty_one');
  const two = dutyOf('duty_two');
  expect(await one.duty.take()).toBe(true);
  expect(await two.duty.take()).toBe(false);
  // Still the holder's at its next round; still refused to the other.
  expect(await one.duty.take()).toBe(true);
  expect(await two.duty.take()).toBe(false);
  await one.duty.close();
  expect(await two.duty.take()).toBe(true);
  expect(two.changes).toEqual([true]);
  expect(await two.duty.take()).toBe(true);
});

it('is not held by a finance login\'s raw lock: the sender follows up anyway and says so', async () => {
  for (const duty of duties.splice(0)) await duty.close();
  const fatou: pg.Client = await workspaces.connectAs('fatou', database);
  await fatou.query('SELECT pg_advisory_lock($1)', [FOLLOW_UP_DUTY_LOCK]);
  const one = dutyOf('duty_one');
  expect(await one.duty.take()).toBe(true);
  expect(one.faults.join('\n')).toContain('not a team sender');
  expect(one.changes).toEqual([]);
  await fatou.end();
});
