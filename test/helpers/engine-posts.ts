/**
 * What an engine in the test's process saw of a team batch, for the tests that send one from
 * desktop processes (./desktop-process.ts): every payout POST it answered, the transactions it
 * created for a batch's external ids, and a wait that says where things stand when it gives up.
 */
import type { EngineHandle } from '../../packages/sandbox/src/engine';
import { REQUEST_EVENT_TOPIC } from '../../packages/sandbox/src/inspector';
import { engineInternals } from '../../packages/sandbox/src/internals';

/** A POST of a payout the engine answered: its external id and HTTP status. */
export interface PayoutPost {
  externalId: string;
  status: number;
}

/** Every payout POST `engine` answers from now on, appended to the list returned as it comes. */
export function recordPayoutPosts(engine: EngineHandle): PayoutPost[] {
  const posts: PayoutPost[] = [];
  engine.onEvent((event) => {
    if (event.type !== 'extension' || event.topic !== REQUEST_EVENT_TOPIC) return;
    const request = event.data as { method: string; path: string; status: number; body: string };
    if (request.method !== 'POST' || !request.path.includes('payout')) return;
    const externalId = (JSON.parse(request.body || '{}') as { external_id?: string }).external_id;
    if (externalId) posts.push({ externalId, status: request.status });
  });
  return posts;
}

/**
 * How many times each external id was asked to be created: every POST but those that met the
 * rate limit (a 429 creates nothing). Sent once, never blindly again, is 1 for every id.
 */
export function createAsks(posts: readonly PayoutPost[]): Map<string, number> {
  const asked = new Map<string, number>();
  for (const post of posts) if (post.status !== 429) asked.set(post.externalId, (asked.get(post.externalId) ?? 0) + 1);
  return asked;
}

/** The transactions `engine` created for external ids `<prefix>-…`: how many per id, their amount, their lowest status. */
export function createdFor(engine: EngineHandle, prefix: string): { external_id: string; n: number; amount: number; status: string }[] {
  return engineInternals(engine)
    .db.prepare(`SELECT external_id, COUNT(*) AS n, SUM(amount) AS amount, MIN(status) AS status FROM transactions WHERE external_id LIKE ? GROUP BY external_id`)
    .all(`${prefix}-%`) as { external_id: string; n: number; amount: number; status: string }[];
}

/** Polls `check` until it holds; past `ms`, fails with `what` and the situation `situation` describes. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, situation: () => Promise<string>, ms: number): Promise<void> {
  const give = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > give) throw new Error(`gave up waiting: ${what}\n${await situation()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
