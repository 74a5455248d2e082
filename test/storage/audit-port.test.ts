/**
 * The audit port (electron/console/storage/audit-port.ts) on a throwaway workspace: pages newest
 * first, each filter (who, action, from/to, subject text) keeping exactly its lines, and the export
 * through the one CSV writer holding every kept line, formula-guarded. Lines are written the way
 * desktops and the database write them (paydesk_audit as each person; the policy's own trigger).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api/audit';
import { readCsv } from '../../shared/csv';
import { auditCsv, auditHandlers } from '../../electron/console/handlers/audit';
import type { Context } from '../../electron/console/handlers/context';
import { AUDIT_CHANNEL_INPUTS } from '../../shared/api/audit';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { setPolicy } from './approval-helpers';

let workspaces: TestWorkspaces;
let database: string;
/** The ids of the lines this test wrote, by a name. */
const ids: Record<string, number> = {};

async function record(person: Person, name: string, action: string, subject: string, after: object | null, remark: string | null) {
  const client = await workspaces.connectAs(person, database);
  const { rows } = await client.query<{ id: string }>(`SELECT paydesk_audit($1, $2, NULL, $3::jsonb, $4) AS id`, [action, subject, after ? JSON.stringify(after) : null, remark]);
  // Lines a few milliseconds apart: the date filters below cut between two of them (at is clock_timestamp()).
  await client.query('SELECT pg_sleep(0.005)');
  await client.end();
  ids[name] = Number(rows[0]!.id);
}

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  await record('fatou', 'fatouImport', 'import', 'batch:B-100', { rows: 12 }, null);
  await record('kofi', 'kofiSignIn', 'sign_in', 'kofi', null, null);
  await record('fatou', 'fatouSend', 'send', 'entry:INV-42', { amount: 5000 }, 'invoice 42');
  await record('kofi', 'kofiFormula', 'send', '=HYPERLINK("http://x","open")', { amount: 7 }, '+cmd|calc');
  await record('fatou', 'fatouPercent', 'cancel', 'batch:B_100%', null, null);
}, 60_000);
afterAll(() => workspaces.stop());

const audit = () => workspaces.storeAs('samuel', database).audit!;
/** The file's records as a spreadsheet reads them (the final line end gives no record). */
function recordsOf(csv: string): string[][] {
  const read = readCsv(csv);
  if (!read.ok) throw new Error(read.problem.message);
  return read.file.records.filter((r) => r.length > 1);
}
const idsOf = (entries: AuditEntry[]) => entries.map((e) => e.id);

describe('the audit port', () => {
  it('reads every line newest first, in pages that follow one another', async () => {
    const port = audit();
    const all = await port.page({}, { limit: 100 });
    // The policy's three lines (adele asks, tester's approval applies it: the trigger's line and the approval's), then the five written above.
    expect(all).toHaveLength(8);
    expect(idsOf(all)).toEqual([...idsOf(all)].sort((a, b) => b - a));
    expect(all.slice(-3).reverse()).toMatchObject([{ actor: 'adele', action: 'change_request' }, { actor: 'tester', action: 'policy_change' }, { actor: 'tester', action: 'change_approve' }]);
    expect(all[0]).toMatchObject({ id: ids.fatouPercent, actor: 'fatou', action: 'cancel', subject: 'batch:B_100%' });
    expect(all.find((e) => e.id === ids.fatouSend)).toMatchObject({ after: { amount: 5000 }, remark: 'invoice 42', before: null });
    const first = await port.page({}, { limit: 4 });
    const second = await port.page({}, { limit: 4, before: first.at(-1)!.id });
    expect([...idsOf(first), ...idsOf(second)]).toEqual(idsOf(all));
  });

  it('keeps exactly the lines of each filter, and of filters together', async () => {
    const port = audit();
    const page = async (filter: Parameters<typeof port.page>[0]) => idsOf(await port.page(filter, { limit: 100 }));
    expect(await page({ actor: 'kofi' })).toEqual([ids.kofiFormula, ids.kofiSignIn]);
    expect(await page({ action: 'send' })).toEqual([ids.kofiFormula, ids.fatouSend]);
    expect(await page({ actor: 'fatou', action: 'send' })).toEqual([ids.fatouSend]);
    // Subject text: any case, inside the subject; % and _ are the characters themselves.
    expect(await page({ subject: 'b-100' })).toEqual([ids.fatouImport]);
    expect(await page({ subject: '_100%' })).toEqual([ids.fatouPercent]);
    expect(await page({ subject: 'inv-4' })).toEqual([ids.fatouSend]);
    const all = await port.page({}, { limit: 100 });
    const atOf = (id: number | undefined) => all.find((e) => e.id === id)!.at;
    // From a line's moment (inclusive) to another's (exclusive).
    expect(await page({ from: atOf(ids.kofiSignIn), to: atOf(ids.kofiFormula) })).toEqual([ids.fatouSend, ids.kofiSignIn]);
    expect(await page({ from: atOf(ids.kofiFormula) })).toEqual([ids.fatouPercent, ids.kofiFormula]);
    expect(await page({ actor: 'nobody' })).toEqual([]);
  });

  it('exports every kept line through the one CSV writer, formula-guarded, in the person’s language', async () => {
    const port = audit();
    const kept = await port.all({ action: 'send' }, 1000);
    expect(idsOf(kept)).toEqual([ids.kofiFormula, ids.fatouSend]);
    const rows = recordsOf(auditCsv(kept, 'en'));
    expect(rows[0]).toEqual(['When', 'Who', 'Action', 'Subject', 'Before', 'After', 'Remark']);
    expect(rows.slice(1).map((r) => r.slice(1))).toEqual([
      ['kofi', 'send', `'=HYPERLINK("http://x","open")`, '', 'amount: 7', "'+cmd|calc"],
      ['fatou', 'send', 'entry:INV-42', '', 'amount: 5000', 'invoice 42'],
    ]);
    expect(rows[1]![0]).toBe(kept[0]!.at);
    expect(recordsOf(auditCsv(kept, 'fr'))[0]).toEqual(['Quand', 'Qui', 'Action', 'Sujet', 'Avant', 'Après', 'Remarque']);
    expect(await port.all({ actor: 'fatou' }, 2)).toHaveLength(2);
  });

  it('pages through audit:list to the end (nextBefore null on the last page), and refuses days the wrong way round', async () => {
    const handlers = auditHandlers({ deps: { storage: workspaces.storeAs('fatou', database), clock: { now: () => Date.UTC(2026, 10, 25, 12) } } } as unknown as Context);
    const seen: number[] = [];
    let before: number | undefined;
    let pages = 0;
    do {
      const page = await handlers['audit:list']({ filter: {}, limit: 2, ...(before === undefined ? {} : { before }) });
      seen.push(...idsOf(page.entries));
      before = page.nextBefore ?? undefined;
      pages += 1;
    } while (before !== undefined);
    expect(pages).toBe(4);
    expect(seen).toEqual(idsOf(await audit().page({}, { limit: 100 })));
    const exported = await handlers['audit:export']({ filter: { actor: 'kofi' }, language: 'en' });
    expect(exported).toMatchObject({ filename: 'paydesk-audit-2026-11-25-12-00-00.csv', rows: 2 });
    const wrongWay = AUDIT_CHANNEL_INPUTS['audit:list'].safeParse({ filter: { from: '2026-11-05T00:00:00Z', to: '2026-11-01T00:00:00Z' } });
    expect(wrongWay.success).toBe(false);
  });
});
