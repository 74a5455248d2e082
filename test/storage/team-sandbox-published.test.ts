/**
 * The team sandbox in the database (workspace migration 49; issue 38 item 4), in raw SQL as each
 * login that tries: only a `paydesk_sender` login publishes it (the function's EXECUTE is the
 * sender's alone), which writes the team profile `team-sandbox` with its keys held by the sender;
 * every role reads where it is; only admins read its control API and token; nobody writes the
 * table directly.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { SENDER_HELD_SQLSTATE, TEAM_SANDBOX } from '../../electron/console/storage/postgres/schema-names';
import { payoutRequest } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let root: pg.Client;
let fatou: pg.Client;
let samuel: pg.Client;
let adele: pg.Client;
let sender: pg.Client;
let plain: pg.Client;

const TOKEN = 'adm_team_sandbox_token_0123456789';
const publish = (client: pg.Client, base = 'http://127.0.0.1:4010') =>
  client.query(`SELECT ${TEAM_SANDBOX.publish}($1, $2, $3)`, [base, `${base}/_sandbox`, TOKEN]);

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  root = await workspaces.server.connect(undefined, database);
  await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sandy') THEN CREATE ROLE sandy LOGIN; END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'nobody_in_team') THEN CREATE ROLE nobody_in_team LOGIN; END IF; END $$`);
  await root.query('GRANT paydesk_sender TO sandy');
  fatou = await workspaces.connectAs('fatou', database);
  samuel = await workspaces.connectAs('samuel', database);
  adele = await workspaces.connectAs('adele', database);
  sender = await workspaces.server.connect('sandy', database);
  plain = await workspaces.server.connect('nobody_in_team', database);
}, 60_000);
afterAll(() => workspaces.stop());

const refused = (code: string) => expect.objectContaining({ code });

describe('publishing the team sandbox', () => {
  it('is refused to finance, support, admin and a plain login: the function is not theirs to execute', async () => {
    for (const client of [fatou, samuel, adele, plain]) {
      await expect(publish(client)).rejects.toEqual(expect.objectContaining({ code: '42501', message: expect.stringContaining('permission denied for function') }));
    }
    const { rows } = await root.query<{ login: string; may: boolean }>(
      `SELECT login, has_function_privilege(login, '${TEAM_SANDBOX.publish}(text, text, text)', 'EXECUTE') AS may FROM unnest(ARRAY['fatou', 'samuel', 'adele', 'nobody_in_team', 'sandy']) AS login`,
    );
    expect(rows).toEqual([
      { login: 'fatou', may: false }, { login: 'samuel', may: false }, { login: 'adele', may: false }, { login: 'nobody_in_team', may: false }, { login: 'sandy', may: true },
    ]);
    expect((await root.query('SELECT 1 FROM team_sandbox')).rowCount).toBe(0);
  });

  it('by the sender writes the row and the team-sandbox profile, held by the sender, audited without the token', async () => {
    await publish(sender);
    const { rows } = await root.query('SELECT profile_id, base_url, control_url, control_token, published_by FROM team_sandbox');
    expect(rows).toEqual([{ profile_id: 'team-sandbox', base_url: 'http://127.0.0.1:4010', control_url: 'http://127.0.0.1:4010/_sandbox', control_token: TOKEN, published_by: 'sandy' }]);
    const profile = await root.query('SELECT id, environment, base_url, keys_held_by, updated_by FROM team_profiles WHERE id = $1', [TEAM_SANDBOX.profileId]);
    expect(profile.rows).toEqual([{ id: 'team-sandbox', environment: 'sandbox', base_url: 'http://127.0.0.1:4010', keys_held_by: 'sender', updated_by: 'sandy' }]);
    const audit = await root.query<{ actor: string; after: unknown }>(`SELECT actor, after FROM audit_log WHERE action = $1`, [TEAM_SANDBOX.auditAction]);
    expect(audit.rows).toEqual([{ actor: 'sandy', after: { baseUrl: 'http://127.0.0.1:4010', controlUrl: 'http://127.0.0.1:4010/_sandbox', profileId: 'team-sandbox' } }]);
    expect(JSON.stringify((await root.query('SELECT * FROM audit_log')).rows)).not.toContain(TOKEN);
  });

  it('again (a restart on another port) moves the profile back to the sender even after an admin gave it to the desktops', async () => {
    await adele.query(`UPDATE team_profiles SET keys_held_by = 'desktops' WHERE id = 'team-sandbox'`);
    await publish(sender, 'http://127.0.0.1:4011');
    const { rows } = await root.query('SELECT base_url, keys_held_by FROM team_profiles WHERE id = $1', [TEAM_SANDBOX.profileId]);
    expect(rows).toEqual([{ base_url: 'http://127.0.0.1:4011', keys_held_by: 'sender' }]);
    expect((await root.query('SELECT count(*)::int AS n FROM team_sandbox')).rows[0]).toEqual({ n: 1 });
  });

  it('makes the team sandbox a profile no finance desktop sends on (its pending entry refused: PD048)', async () => {
    const request = payoutRequest({ external_id: 'TS-RAW-1', amount: 500 });
    await expect(fatou.query(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
         customer_first_name, customer_last_name, customer_email, request, created_at, updated_at)
       VALUES ($1, 'team-sandbox', 'x', 'sandbox', 'payout', 'pending', $1, $2, 'XAF', $3, $4, $5, $6, $7, $8, 1, 1)`,
      ['TS-RAW-1', request.amount, request.phone_number, request.payment_method, request.customer.first_name, request.customer.last_name, request.customer.email, JSON.stringify(request)],
    )).rejects.toEqual(refused(SENDER_HELD_SQLSTATE));
  });
});

describe('reading the team sandbox', () => {
  it('gives where it is to finance, support, admin and the sender', async () => {
    for (const client of [fatou, samuel, adele, sender]) {
      const { rows } = await client.query('SELECT base_url, published_by FROM team_sandbox');
      expect(rows).toEqual([{ base_url: 'http://127.0.0.1:4011', published_by: 'sandy' }]);
    }
  });

  it('gives its control API and token to admins only', async () => {
    expect((await adele.query('SELECT control_url, control_token FROM team_sandbox')).rows).toEqual([{ control_url: 'http://127.0.0.1:4011/_sandbox', control_token: TOKEN }]);
    for (const client of [fatou, samuel, sender]) {
      await expect(client.query('SELECT control_token FROM team_sandbox')).rejects.toEqual(expect.objectContaining({ code: '42501', message: expect.stringContaining('permission denied for table team_sandbox') }));
      await expect(client.query('SELECT control_url FROM team_sandbox')).rejects.toEqual(refused('42501'));
      await expect(client.query('SELECT * FROM team_sandbox')).rejects.toEqual(refused('42501'));
    }
  });

  it('gives nothing to a plain login', async () => {
    await expect(plain.query('SELECT base_url FROM team_sandbox')).rejects.toEqual(refused('42501'));
  });
});

describe('writing the table directly', () => {
  it('is refused to every role, the sender and admins included', async () => {
    for (const client of [fatou, samuel, adele, sender, plain]) {
      await expect(client.query(`UPDATE team_sandbox SET base_url = 'http://evil.example'`)).rejects.toEqual(refused('42501'));
      await expect(client.query(`DELETE FROM team_sandbox`)).rejects.toEqual(refused('42501'));
      await expect(client.query(`INSERT INTO team_sandbox (profile_id, base_url, control_url, control_token) VALUES ('team-sandbox', 'http://x', 'http://x', '${TOKEN}')`)).rejects.toEqual(refused('42501'));
    }
    expect((await root.query('SELECT base_url FROM team_sandbox')).rows).toEqual([{ base_url: 'http://127.0.0.1:4011' }]);
  });
});
