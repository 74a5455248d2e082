/**
 * The team workspace's schema as one text a database reviewer reads: what the migrations built.
 *
 * Read from the catalogs of a migrated database (never from the migration files, so it shows what
 * PostgreSQL holds, later `ALTER`s and `CREATE OR REPLACE`s applied): the roles, the extensions,
 * the schema's grants, each table with its columns, constraints, indexes, row-level security
 * policies, grants (table and column) and triggers, the sequences' grants, and every function with
 * its settings (SECURITY DEFINER, search_path) and body and who may execute it.
 *
 * Deterministic: sorted by name, no OIDs, no times, no version numbers of extensions, and the login
 * that ran the migrations (it owns everything, so it holds every privilege) written as `<owner>`.
 * scripts/schema-snapshot.ts writes it to docs/workspace-schema.sql; test/storage/schema-snapshot.test.ts
 * keeps that file equal to what a fresh database gets.
 */
import type pg from 'pg';
import { migrateWorkspace } from '../electron/console/storage/postgres/migrate';

/** The schema the workspace's tables and functions live in (migration 7). */
const SCHEMA = 'public';

/** Roles a migration creates: the team's. The login running the migrations is the owner, not one of them. */
const ROLE_PATTERN = 'paydesk\\_%';

interface Grant {
  grantee: string;
  privilege: string;
  grantable: boolean;
}

type Query = (text: string, values?: unknown[]) => Promise<Record<string, unknown>[]>;

const OWNER = '<owner>';

/** `GRANT … TO a, b;` lines: one a grantee, its privileges in a fixed order. */
function grantLines(grants: readonly Grant[], on: string): string[] {
  const byGrantee = new Map<string, string[]>();
  for (const grant of grants) {
    const list = byGrantee.get(grant.grantee) ?? [];
    list.push(grant.privilege + (grant.grantable ? ' WITH GRANT OPTION' : ''));
    byGrantee.set(grant.grantee, list);
  }
  return [...byGrantee.keys()].sort().map((grantee) => `GRANT ${byGrantee.get(grantee)!.sort().join(', ')} ON ${on} TO ${grantee};`);
}

/** The grants of one object's ACL (NULL: the kind's default), the owner's own left out. */
const ACL_ROWS = (acl: string, owner: string) => `
  SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END AS grantee,
         a.privilege_type AS privilege, a.is_grantable AS grantable
  FROM pg_catalog.aclexplode(${acl}) a WHERE a.grantee <> ${owner}`;

/** The grants on the one row of `catalog` (aliased `o`) that `where` names. */
async function grantsOf(query: Query, catalog: string, kind: string, aclColumn: string, ownerColumn: string, where: string, values: unknown[]): Promise<Grant[]> {
  const rows = await query(
    `SELECT g.* FROM pg_catalog.${catalog} o, LATERAL (${ACL_ROWS(`coalesce(o.${aclColumn}, pg_catalog.acldefault('${kind}', o.${ownerColumn}))`, `o.${ownerColumn}`)}) g WHERE ${where}`,
    values,
  );
  return rows as unknown as Grant[];
}

async function roles(query: Query): Promise<string[]> {
  const rows = await query(
    `SELECT r.rolname AS name,
       concat_ws(' ', CASE WHEN r.rolcanlogin THEN 'LOGIN' ELSE 'NOLOGIN' END, CASE WHEN r.rolsuper THEN 'SUPERUSER' END,
         CASE WHEN r.rolcreaterole THEN 'CREATEROLE' END, CASE WHEN r.rolcreatedb THEN 'CREATEDB' END,
         CASE WHEN NOT r.rolinherit THEN 'NOINHERIT' END, CASE WHEN r.rolbypassrls THEN 'BYPASSRLS' END) AS options,
       (SELECT string_agg(g.rolname, ', ' ORDER BY g.rolname) FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
          WHERE m.member = r.oid) AS member_of
     FROM pg_catalog.pg_roles r WHERE r.rolname LIKE $1 AND r.rolname <> current_user ORDER BY 1`,
    [ROLE_PATTERN],
  );
  return rows.flatMap((row) => [`CREATE ROLE ${String(row.name)} ${String(row.options)};`, ...(row.member_of ? [`GRANT ${String(row.member_of)} TO ${String(row.name)};`] : [])]);
}

async function extensions(query: Query): Promise<string[]> {
  const rows = await query(`SELECT e.extname AS name, n.nspname AS schema FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname <> 'plpgsql' ORDER BY 1`);
  return rows.map((row) => `CREATE EXTENSION ${String(row.name)} SCHEMA ${String(row.schema)};`);
}

async function schemaGrants(query: Query): Promise<string[]> {
  return grantLines(await grantsOf(query, 'pg_namespace', 'n', 'nspacl', 'nspowner', 'o.nspname = $1', [SCHEMA]), `SCHEMA ${SCHEMA}`);
}

/** Names of the schema's relations of the given kinds, sorted. */
async function relations(query: Query, kinds: string): Promise<{ name: string; oid: string; owned: boolean; kind: string }[]> {
  const rows = await query(
    `SELECT c.relname AS name, c.oid::text AS oid, c.relowner = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user) AS owned, c.relkind::text AS kind
     FROM pg_catalog.pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind = ANY ($2::"char"[])
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
     ORDER BY 1`,
    [SCHEMA, kinds.split('')],
  );
  return rows as unknown as { name: string; oid: string; owned: boolean; kind: string }[];
}

async function table(query: Query, rel: { name: string; oid: string; owned: boolean; kind: string }): Promise<string[]> {
  const lines: string[] = [];
  const columns = await query(
    `SELECT pg_catalog.quote_ident(a.attname) AS name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
       pg_catalog.pg_get_expr(d.adbin, d.adrelid) AS default_value, a.attgenerated::text AS generated
     FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [rel.oid],
  );
  if (rel.kind === 'v' || rel.kind === 'm') {
    const [view] = await query(`SELECT pg_catalog.pg_get_viewdef($1::oid, true) AS body`, [rel.oid]);
    lines.push(`CREATE ${rel.kind === 'm' ? 'MATERIALIZED ' : ''}VIEW ${rel.name} AS`, String(view!.body).trimEnd().replace(/;?$/, ';'));
  } else {
    lines.push(`CREATE TABLE ${rel.name} (`);
    columns.forEach((column, i) => {
      const generated = column.generated === 's' ? ` GENERATED ALWAYS AS (${String(column.default_value)}) STORED` : '';
      const defaultValue = column.default_value !== null && !generated ? ` DEFAULT ${String(column.default_value)}` : '';
      lines.push(`  ${String(column.name)} ${String(column.type)}${column.not_null ? ' NOT NULL' : ''}${defaultValue}${generated}${i < columns.length - 1 ? ',' : ''}`);
    });
    lines.push(');');
  }
  if (!rel.owned) lines.push(`ALTER TABLE ${rel.name} OWNER TO ${String((await query(`SELECT pg_catalog.pg_get_userbyid(relowner) AS o FROM pg_catalog.pg_class WHERE oid = $1::oid`, [rel.oid]))[0]!.o)};`);

  // NOT NULL is on the column; PostgreSQL 18 also lists it as a constraint ('n').
  const constraints = await query(
    `SELECT pg_catalog.quote_ident(conname) AS name, pg_catalog.pg_get_constraintdef(oid, true) AS definition FROM pg_catalog.pg_constraint
     WHERE conrelid = $1::oid AND contype <> 'n' ORDER BY 1`,
    [rel.oid],
  );
  for (const c of constraints) lines.push(`ALTER TABLE ${rel.name} ADD CONSTRAINT ${String(c.name)} ${String(c.definition)};`);

  const indexes = await query(
    `SELECT pg_catalog.pg_get_indexdef(i.indexrelid) AS definition, ic.relname AS name FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
     WHERE i.indrelid = $1::oid AND NOT EXISTS (SELECT FROM pg_catalog.pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid) ORDER BY 2`,
    [rel.oid],
  );
  for (const index of indexes) lines.push(`${String(index.definition)};`);

  const [security] = await query(`SELECT relrowsecurity AS enabled, relforcerowsecurity AS forced FROM pg_catalog.pg_class WHERE oid = $1::oid`, [rel.oid]);
  if (security!.enabled) lines.push(`ALTER TABLE ${rel.name} ENABLE ROW LEVEL SECURITY;`);
  if (security!.forced) lines.push(`ALTER TABLE ${rel.name} FORCE ROW LEVEL SECURITY;`);
  const policies = await query(
    `SELECT pg_catalog.quote_ident(p.polname) AS name, CASE WHEN p.polpermissive THEN 'PERMISSIVE' ELSE 'RESTRICTIVE' END AS mode,
       CASE p.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE' WHEN 'd' THEN 'DELETE' ELSE 'ALL' END AS command,
       CASE WHEN p.polroles = '{0}' THEN 'PUBLIC' ELSE (SELECT string_agg(pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(r)), ', ' ORDER BY pg_catalog.pg_get_userbyid(r)) FROM unnest(p.polroles) r) END AS roles,
       pg_catalog.pg_get_expr(p.polqual, p.polrelid) AS using_expr, pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid) AS check_expr
     FROM pg_catalog.pg_policy p WHERE p.polrelid = $1::oid ORDER BY 1`,
    [rel.oid],
  );
  for (const p of policies) {
    lines.push(
      `CREATE POLICY ${String(p.name)} ON ${rel.name} AS ${String(p.mode)} FOR ${String(p.command)} TO ${String(p.roles)}` +
        (p.using_expr !== null ? `\n  USING (${String(p.using_expr)})` : '') +
        (p.check_expr !== null ? `\n  WITH CHECK (${String(p.check_expr)})` : '') +
        ';',
    );
  }

  const grants = await grantsOf(query, 'pg_class', 'r', 'relacl', 'relowner', 'o.oid = $1::oid', [rel.oid]);
  lines.push(...grantLines(grants, `TABLE ${rel.name}`));
  const columnGrants = await query(
    `SELECT g.grantee, g.privilege, g.grantable, string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) AS columns
     FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid,
       LATERAL (${ACL_ROWS('a.attacl', 'c.relowner')}) g
     WHERE a.attrelid = $1::oid AND a.attacl IS NOT NULL AND NOT a.attisdropped
     GROUP BY 1, 2, 3 ORDER BY 2, 1`,
    [rel.oid],
  );
  for (const g of columnGrants) lines.push(`GRANT ${String(g.privilege)} (${String(g.columns)}) ON TABLE ${rel.name} TO ${String(g.grantee)}${g.grantable ? ' WITH GRANT OPTION' : ''};`);

  const triggers = await query(
    `SELECT pg_catalog.pg_get_triggerdef(oid, true) AS definition, pg_catalog.quote_ident(tgname) AS name, tgenabled::text AS enabled
     FROM pg_catalog.pg_trigger WHERE tgrelid = $1::oid AND NOT tgisinternal ORDER BY tgname`,
    [rel.oid],
  );
  // A trigger fires on an ordinary session unless disabled ('D'), or set to fire on replicas only ('R') or always ('A').
  const firing: Record<string, string> = { D: 'DISABLE', R: 'ENABLE REPLICA', A: 'ENABLE ALWAYS' };
  for (const t of triggers) {
    lines.push(`${String(t.definition)};`);
    const how = firing[String(t.enabled)];
    if (how) lines.push(`ALTER TABLE ${rel.name} ${how} TRIGGER ${String(t.name)};`);
  }
  return lines;
}

async function sequenceGrants(query: Query): Promise<string[]> {
  const lines: string[] = [];
  for (const seq of await relations(query, 'S')) {
    const grants = await grantsOf(query, 'pg_class', 's', 'relacl', 'relowner', 'o.oid = $1::oid', [seq.oid]);
    lines.push(...grantLines(grants, `SEQUENCE ${seq.name}`));
  }
  return lines;
}

async function functions(query: Query): Promise<string[][]> {
  const rows = await query(
    `SELECT p.oid::text AS oid, p.oid::regprocedure::text AS signature, pg_catalog.pg_get_functiondef(p.oid) AS definition,
       p.prosecdef AS security_definer, p.proconfig AS config,
       p.proowner = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user) AS owned, pg_catalog.pg_get_userbyid(p.proowner) AS owner
     FROM pg_catalog.pg_proc p WHERE p.pronamespace = $1::regnamespace
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
     ORDER BY 2`,
    [SCHEMA],
  );
  const blocks: string[][] = [];
  for (const f of rows) {
    const signature = String(f.signature);
    const settings = [f.security_definer ? `SECURITY DEFINER (runs as ${f.owned ? OWNER : String(f.owner)})` : 'SECURITY INVOKER', ...((f.config as string[] | null) ?? ['no fixed settings'])];
    const grants = await grantsOf(query, 'pg_proc', 'f', 'proacl', 'proowner', 'o.oid = $1::oid', [f.oid]);
    blocks.push([
      `-- ${signature}: ${settings.join('; ')}`,
      String(f.definition).trimEnd() + ';',
      ...(f.owned ? [] : [`ALTER FUNCTION ${signature} OWNER TO ${String(f.owner)};`]),
      ...(grants.some((g) => g.grantee === 'PUBLIC') ? [] : [`REVOKE EXECUTE ON FUNCTION ${signature} FROM PUBLIC;`]),
      ...grantLines(grants, `FUNCTION ${signature}`),
    ]);
  }
  return blocks;
}

async function defaultPrivileges(query: Query): Promise<string[]> {
  const rows = await query(
    `SELECT pg_catalog.pg_get_userbyid(d.defaclrole) = current_user AS owned, pg_catalog.pg_get_userbyid(d.defaclrole) AS role,
       d.defaclobjtype::text AS kind, g.grantee, g.privilege, g.grantable
     FROM pg_catalog.pg_default_acl d LEFT JOIN pg_catalog.pg_namespace n ON n.oid = d.defaclnamespace,
       LATERAL (${ACL_ROWS('d.defaclacl', 'd.defaclrole')}) g
     ORDER BY 2, 3, 4, 5`,
  );
  const kinds: Record<string, string> = { r: 'TABLES', S: 'SEQUENCES', f: 'FUNCTIONS', T: 'TYPES', n: 'SCHEMAS' };
  return rows.map((r) => `ALTER DEFAULT PRIVILEGES FOR ROLE ${r.owned ? OWNER : String(r.role)} GRANT ${String(r.privilege)} ON ${kinds[String(r.kind)] ?? String(r.kind)} TO ${String(r.grantee)};`);
}

const section = (title: string, lines: readonly string[]) => [`-- ${'='.repeat(96)}`, `-- ${title}`, `-- ${'='.repeat(96)}`, '', ...lines, ''];

/** The schema of the database `client` is connected to, as the login that migrated it. */
export async function describeWorkspaceSchema(client: pg.ClientBase, header: readonly string[] = []): Promise<string> {
  const query: Query = async (text, values) => (await client.query(text, values)).rows as Record<string, unknown>[];
  const [version] = await query(`SELECT coalesce(max(version), 0) AS version FROM paydesk_schema_migrations`);
  const tableBlocks: string[] = [];
  for (const rel of await relations(query, 'rpvm')) tableBlocks.push(`-- ${rel.name}`, ...(await table(query, rel)), '');
  const out = [
    ...header,
    `-- Schema version ${String(version!.version)}. \`${OWNER}\` is the login that ran the migrations: it owns every table and`,
    `-- function, so holds every privilege on them, and a SECURITY DEFINER function runs as it. Each`,
    `-- person's login is a member of the roles below; a privilege not granted here is refused.`,
    '',
    ...section('Roles (the cluster\'s, shared by its databases)', await roles(query)),
    ...section('Extensions', await extensions(query)),
    ...section(`Schema ${SCHEMA}`, [...(await schemaGrants(query)), ...(await defaultPrivileges(query))]),
    ...section('Tables: columns, constraints, indexes, row-level security, grants, triggers', tableBlocks),
    ...section('Sequences (their grants)', await sequenceGrants(query)),
    ...section('Functions: settings, body, who may execute', (await functions(query)).flatMap((block) => [...block, ''])),
  ];
  return out.join('\n').replace(/\n+$/, '\n');
}

/** Where the snapshot is committed. */
export const SNAPSHOT_FILE = 'docs/workspace-schema.sql';

const SNAPSHOT_HEADER = [
  `-- The team workspace's schema as its migrations build it: the one place to read its security model`,
  `-- (who may read and write what, the row-level security, the gates' triggers and functions).`,
  `-- Written by \`npm run schema:snapshot\` from a fresh database migrated with`,
  `-- electron/console/storage/postgres/migrations/*.sql; test/storage/schema-snapshot.test.ts fails when`,
  `-- it differs. Do not edit it: change the migrations, then run the script again.`,
  '',
];

/** Migrates the empty database `client` is connected to (as its owner) and describes it with the snapshot's header. */
export async function freshWorkspaceSnapshot(client: pg.ClientBase): Promise<string> {
  await migrateWorkspace(client);
  return describeWorkspaceSchema(client, SNAPSHOT_HEADER);
}
