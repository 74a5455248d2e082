/**
 * People, not logins (workspace migrations 45-46; docs/decisions/people-and-admin-four-eyes.md), in
 * raw SQL as each role, what a modified client or a psql prompt could send. adele and tester are
 * the workspace's two admins (two people); fatou and kofi finance; samuel support. Only an admin
 * asks a change to people, roles or the policy, and only another admin, another person, applies
 * it; names and passwords are data; "nobody approves what they asked" holds across a person's
 * logins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_SQLSTATE, PEOPLE_SQLSTATE } from '../../electron/console/storage/postgres/schema-names';
import { scramVerifier } from '../../electron/console/storage/postgres/scram-verifier';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { adminChange, approve, askPayout, requestRow, setPolicy } from './approval-helpers';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const refusedAs = (code: string) => expect.objectContaining({ code });
const VERIFIER = scramVerifier('correct horse battery staple');

async function workspace() {
  const database = await workspaces.create();
  const as = (person: Person) => workspaces.connectAs(person, database);
  const owner = await workspaces.server.connect(undefined, database);
  const count = async (sql: string, params: unknown[] = []) => Number((await owner.query(sql, params)).rows[0].n);
  return { database, as, owner, count };
}

/** adele asks to add `login` (a new person, or a second login of `samePersonAs`'s person); tester approves it. */
function addLogin(database: string, login: string, role: string, displayName: string, samePersonAs: string | null = null): Promise<number> {
  return adminChange(workspaces, database, 'SELECT paydesk_ask_add_person($1, $2, $3, $4, $5) AS id', [login, role, displayName, VERIFIER, samePersonAs]);
}

describe('adding people', () => {
  it('is refused to finance and support, whatever they call', async () => {
    const { as, count } = await workspace();
    for (const person of ['fatou', 'samuel'] as const) {
      const client = await as(person);
      await expect(client.query('SELECT paydesk_ask_add_person($1, $2, $3, $4)', ['mallory', 'paydesk_admin', 'Mallory', VERIFIER])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.notAdmin));
      await expect(client.query('SELECT paydesk_do_add_person($1, $2, $3, $4)', ['mallory', 'paydesk_admin', 'Mallory', VERIFIER])).rejects.toEqual(refusedAs('42501'));
      await expect(client.query(`INSERT INTO people (display_name) VALUES ('Mallory')`)).rejects.toEqual(refusedAs('42501'));
      await expect(client.query(`INSERT INTO person_logins VALUES ('fatou', 1)`)).rejects.toEqual(refusedAs('42501'));
      await expect(client.query(`INSERT INTO admin_changes (kind, change, requested_by_person) VALUES ('role', '{}', 'x')`)).rejects.toEqual(refusedAs('42501'));
    }
    expect(await count(`SELECT count(*) AS n FROM pg_roles WHERE rolname = 'mallory'`)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM admin_changes')).toBe(0);
  });

  it('is asked by one admin and applied by another: a login with its role, its person and its password verifier, audited both times', async () => {
    const { database, as, owner, count } = await workspace();
    const id = await addLogin(database, 'nadia', 'paydesk_finance', 'Nadia Ekwueme');
    const { rows } = await owner.query(`SELECT p.display_name, p.disabled, pg_has_role('nadia', 'paydesk_finance', 'MEMBER') AS finance, a.rolpassword = $1 AS password
      FROM person_logins l JOIN people p ON p.id = l.person_id JOIN pg_authid a ON a.rolname = l.login WHERE l.login = 'nadia'`, [VERIFIER]);
    expect(rows).toEqual([{ display_name: 'Nadia Ekwueme', disabled: false, finance: true, password: true }]);
    const audit = await owner.query(`SELECT actor, action FROM audit_log WHERE subject IN ($1, 'login:nadia') ORDER BY id`, [`change:${id}`]);
    expect(audit.rows).toEqual([
      { actor: 'adele', action: 'change_request' },
      { actor: 'tester', action: 'person_change' },
      { actor: 'tester', action: 'change_approve' },
    ]);
    // The verifier is not kept once applied, and no admin reads that column while it waits.
    expect(await count('SELECT count(*) AS n FROM admin_changes WHERE verifier IS NOT NULL')).toBe(0);
    await expect((await as('adele')).query('SELECT verifier FROM admin_changes')).rejects.toEqual(refusedAs('42501'));
    // A password in clear is refused: only a verifier reaches the workspace.
    await expect((await as('adele')).query('SELECT paydesk_ask_reset_password($1, $2)', ['nadia', 'hunter2'])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.invalidInput));
  });

  it('takes names and passwords as data: SQL text in a display name is stored as typed, in a login, a role or a password it is refused', async () => {
    const { database, as, owner, count } = await workspace();
    const adele = await as('adele');
    const hostileName = `Robert'); DROP TABLE entries; --`;
    await addLogin(database, 'bobby', 'paydesk_support', hostileName);
    expect((await owner.query(`SELECT p.display_name FROM people p JOIN person_logins l ON l.person_id = p.id WHERE l.login = 'bobby'`)).rows).toEqual([{ display_name: hostileName }]);
    for (const [login, role, password] of [
      [`x"; DROP ROLE adele; --`, 'paydesk_finance', VERIFIER],
      [`x' LOGIN SUPERUSER --`, 'paydesk_finance', VERIFIER],
      ['eve', 'paydesk_finance TO adele; GRANT paydesk_admin', VERIFIER],
      ['eve', 'pg_read_server_files', VERIFIER],
      ['eve', 'paydesk_finance', `x' SUPERUSER; --`],
    ] as const) {
      await expect(adele.query('SELECT paydesk_ask_add_person($1, $2, $3, $4)', [login, role, 'Eve', password])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.invalidInput));
    }
    // The owner's own bootstrap function checks the same way.
    await expect(owner.query('SELECT paydesk_do_add_person($1, $2, $3, $4)', [`x"; DROP ROLE adele; --`, 'paydesk_finance', 'Eve', VERIFIER])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.invalidInput));
    expect(await count(`SELECT count(*) AS n FROM pg_roles WHERE rolname IN ('adele', 'bobby') AND NOT rolsuper`)).toBe(2);
    expect(await count(`SELECT count(*) AS n FROM pg_roles WHERE rolname LIKE 'x%' OR rolname = 'eve'`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM pg_tables WHERE tablename = 'entries'`)).toBe(1);
  });

  it('resets a password and disables a login, never the owner’s or a superuser’s', async () => {
    const { database, as, owner, count } = await workspace();
    await addLogin(database, 'nadine', 'paydesk_finance', 'Nadia');
    const renewed = scramVerifier('a new one');
    await adminChange(workspaces, database, 'SELECT paydesk_ask_reset_password($1, $2) AS id', ['nadine', renewed]);
    expect(await count(`SELECT count(*) AS n FROM pg_authid WHERE rolname = 'nadine' AND rolpassword = $1`, [renewed])).toBe(1);
    await adminChange(workspaces, database, 'SELECT paydesk_ask_disable_login($1) AS id', ['nadine']);
    expect((await owner.query(`SELECT r.rolcanlogin, l.disabled, p.disabled AS person FROM pg_roles r JOIN person_logins l ON l.login = r.rolname JOIN people p ON p.id = l.person_id WHERE r.rolname = 'nadine'`)).rows)
      .toEqual([{ rolcanlogin: false, disabled: true, person: true }]);
    await expect(workspaces.server.connect('nadine', database)).rejects.toThrow(/not permitted to log in/);
    const adele = await as('adele');
    const superuser = (await owner.query('SELECT current_user AS name')).rows[0].name as string;
    await expect(adele.query('SELECT paydesk_ask_reset_password($1, $2)', [superuser, renewed])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.notAPerson));
    await expect(adele.query('SELECT paydesk_ask_disable_login($1)', [superuser])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.notAPerson));
    await expect(adele.query('SELECT paydesk_ask_role($1, $2, false)', [superuser, 'paydesk_admin'])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.notAPerson));
    // Another superuser (not the database's owner) and a login that creates roles are not the workspace's either.
    await owner.query('CREATE ROLE dba_two LOGIN SUPERUSER; CREATE ROLE people_maker LOGIN CREATEROLE IN ROLE paydesk_finance');
    for (const login of ['dba_two', 'people_maker']) {
      await expect(adele.query('SELECT paydesk_ask_reset_password($1, $2)', [login, renewed])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.notAPerson));
    }
  });
});

describe('maker and checker are two people', () => {
  it('refuses a vote by the maker’s second login, and counts one person once', async () => {
    const { database, as } = await workspace();
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }, { minAmount: 1_000_000, approvals: 2 }]);
    // fatou's second login, a finance one too: the same person.
    await addLogin(database, 'fatou_two', 'paydesk_finance', 'ignored', 'fatou');
    const fatou = await as('fatou');
    const second = await workspaces.server.connect('fatou_two', database);
    const id = (await askPayout(fatou, 150_000, 'P-2LOGINS'))!;
    // The console's "waiting for me" list does not offer it to her second login either.
    expect((await workspaces.storeAs('fatou_two' as Person, database).approvals!.waiting('forMe')).map((r) => r.id)).not.toContain(id);
    await expect(approve(second, id)).rejects.toEqual(refusedAs(APPROVAL_SQLSTATE.ownRequest));
    await expect(second.query(`SELECT paydesk_reject($1, 'mine')`, [id])).rejects.toEqual(refusedAs(APPROVAL_SQLSTATE.ownRequest));
    expect(await requestRow(fatou, id)).toMatchObject({ state: 'awaiting', approvals_given: 0 });
    // Two approvals asked: kofi, then kofi's second login, counts once.
    await addLogin(database, 'kofi_two', 'paydesk_finance', 'ignored', 'kofi');
    const big = (await askPayout(fatou, 1_500_000, 'P-TWICE'))!;
    expect(await approve(await as('kofi'), big)).toBe('awaiting');
    await expect(approve(await workspaces.server.connect('kofi_two', database), big)).rejects.toThrow(/has voted on approval request/);
    expect(await requestRow(fatou, big)).toMatchObject({ state: 'awaiting', approvals_given: 1 });
    expect(await approve(await as('tester'), big)).toBe('approved');
  });
});

describe('one admin alone', () => {
  it('cannot change the policy, a role or a person: no direct write, no approval of her own change from any of her logins', async () => {
    const { database, as, owner, count } = await workspace();
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
    // adele's second admin login, added by two admins: still adele.
    await addLogin(database, 'adele_two', 'paydesk_admin', 'ignored', 'adele');
    const adele = await as('adele');
    const adeleTwo = await workspaces.server.connect('adele_two', database);
    const policyBefore = (await owner.query('SELECT * FROM approval_tiers ORDER BY min_amount')).rows;

    await expect(adele.query('DELETE FROM approval_tiers')).rejects.toEqual(refusedAs('42501'));
    await expect(adele.query(`INSERT INTO approval_tiers VALUES ('sandbox', 'XAF', 0, 0, 'paydesk_finance')`)).rejects.toEqual(refusedAs('42501'));
    await expect(adele.query(`SELECT paydesk_set_role('adele', 'paydesk_finance', true)`)).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.directWrite));
    await expect(adele.query('GRANT paydesk_finance TO adele')).rejects.toEqual(refusedAs('42501'));
    await expect(adele.query('SELECT paydesk_do_set_policy($1)', [JSON.stringify({ environment: 'sandbox', currency: 'XAF', tiers: [] })])).rejects.toEqual(refusedAs('42501'));
    await expect(adele.query('SELECT paydesk_do_set_role($1, $2, true)', ['adele', 'paydesk_finance'])).rejects.toEqual(refusedAs('42501'));

    const asks = [
      (await adele.query(`SELECT paydesk_ask_policy('sandbox', 'XAF', '[]') AS id`)).rows[0].id,
      (await adele.query(`SELECT paydesk_ask_role('adele', 'paydesk_finance', true) AS id`)).rows[0].id,
      (await adele.query('SELECT paydesk_ask_add_person($1, $2, $3, $4) AS id', ['adele_three', 'paydesk_finance', 'Adele', VERIFIER])).rows[0].id,
      (await adele.query(`SELECT paydesk_ask_disable_login('tester') AS id`)).rows[0].id,
    ];
    for (const id of asks) {
      for (const self of [adele, adeleTwo]) await expect(self.query('SELECT paydesk_approve_change($1)', [id])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.secondAdminNeeded));
      // Finance and support decide nothing.
      await expect((await as('fatou')).query('SELECT paydesk_approve_change($1)', [id])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.notAdmin));
    }
    expect((await owner.query('SELECT * FROM approval_tiers ORDER BY min_amount')).rows).toEqual(policyBefore);
    expect(await count(`SELECT count(*) AS n FROM pg_roles WHERE rolname = 'adele_three'`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = 'adele' AND m.roleid = 'paydesk_finance'::regrole`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM admin_changes WHERE state = 'awaiting'`)).toBe(4);
    // adele may withdraw her own; another admin rejects.
    expect((await adeleTwo.query(`SELECT paydesk_reject_change($1, 'not now') AS state`, [asks[0]])).rows[0].state).toBe('withdrawn');
    expect((await (await as('tester')).query(`SELECT paydesk_reject_change($1, 'no') AS state`, [asks[3]])).rows[0].state).toBe('rejected');
    await expect((await as('tester')).query('SELECT paydesk_approve_change($1)', [asks[3]])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.changeNotWaiting));
    expect(await count(`SELECT count(*) AS n FROM pg_roles WHERE rolname = 'tester' AND rolcanlogin`)).toBe(1);
  });

  it('is what a workspace with one admin person has: it says so, and her changes wait', async () => {
    const { database, as } = await workspace();
    const adele = await as('adele');
    // Roles are the cluster's: other tests' admin logins count too, so the count is compared with its start.
    const admins = async () => Number((await adele.query('SELECT paydesk_admin_people() AS n')).rows[0].n);
    const start = await admins();
    expect(start).toBeGreaterThanOrEqual(2);
    await addLogin(database, 'adele_alone', 'paydesk_admin', 'ignored', 'adele');
    expect(await admins()).toBe(start);
    // tester leaves the admins (adele asks, tester approves): one admin person fewer.
    await adminChange(workspaces, database, `SELECT paydesk_ask_role('tester', 'paydesk_admin', false) AS id`, []);
    expect(await admins()).toBe(start - 1);
    const id = (await adele.query(`SELECT paydesk_ask_policy('sandbox', 'XAF', '[{"min_amount": 0, "approvals": 0, "approver_role": "paydesk_finance"}]') AS id`)).rows[0].id;
    await expect(adele.query('SELECT paydesk_approve_change($1)', [id])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.secondAdminNeeded));
    await expect((await as('tester')).query('SELECT paydesk_approve_change($1)', [id])).rejects.toEqual(refusedAs(PEOPLE_SQLSTATE.notAdmin));
    // Put back for the other tests of this cluster (roles are shared): the owner's bootstrap.
    await workspaces.server.connect(undefined, database).then((owner) => owner.query(`SELECT paydesk_do_set_role('tester', 'paydesk_admin', true)`));
  });
});
