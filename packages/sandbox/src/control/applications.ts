/**
 * Applications and keys as the control API changes them: create (with a fresh key pair per
 * environment and type), activate or deactivate, approve live mode, add keys, disable keys, set
 * a key's IP whitelist, rotate a key's secret. Each operation is one write.
 */
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { ENVIRONMENTS, KEY_TYPES, type Environment, type KeyType } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import { randomBase62 } from '../storage/ids';
import { seededApplications, type SeededApplication, type SeededKey } from '../storage/seeding';
import { ControlError } from './guard';

const ID_CHARS = /^[A-Za-z0-9_]+$/;
const ipList = z.array(z.string().refine((ip) => isIP(ip) !== 0, { message: 'must be an IPv4 or IPv6 address' })).max(100);

export const createApplicationSchema = z.strictObject({
  id: z.string().min(1).max(64).regex(ID_CHARS, 'may contain only letters, digits and _').optional(),
  name: z.string({ error: 'is required' }).trim().min(1, 'is required').max(100),
  status: z.enum(['active', 'inactive', 'pending']).default('active'),
  liveApproved: z.boolean().default(false),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like XAF').default('XAF'),
});

export const updateApplicationSchema = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(100).optional(),
    /** `inactive`: deactivated (APP_NOT_ACTIVE); `pending`: never activated (APPLICATION_NOT_ACTIVE). */
    status: z.enum(['active', 'inactive', 'pending']).optional(),
    liveApproved: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'give at least one of name, status, liveApproved' });

export const createKeySchema = z.strictObject({
  environment: z.enum(ENVIRONMENTS),
  type: z.enum(KEY_TYPES),
  ipWhitelist: ipList.default([]),
});

export const updateKeySchema = z
  .strictObject({ active: z.boolean().optional(), ipWhitelist: ipList.optional() })
  .refine((body) => body.active !== undefined || body.ipWhitelist !== undefined, { message: 'give active, ipWhitelist or both' });

export function listApplications(ctx: EngineContext): SeededApplication[] {
  return seededApplications(ctx.db);
}

export function getApplication(ctx: EngineContext, appId: string): SeededApplication {
  const app = seededApplications(ctx.db).find((candidate) => candidate.id === appId);
  if (!app) throw new ControlError('NOT_FOUND', `No application ${appId}.`);
  return app;
}

function insertKey(ctx: EngineContext, appId: string, environment: Environment, type: KeyType, ipWhitelist: string[]): void {
  ctx.db
    .prepare('INSERT INTO api_keys (public_key, secret_key, app_id, environment, type, active, ip_whitelist) VALUES (?, ?, ?, ?, ?, 1, ?)')
    .run(`pk_${environment}_${type}_${randomBase62(24)}`, `sk_${environment}_${type}_${randomBase62(40)}`, appId, environment, type, JSON.stringify(ipWhitelist));
}

/** A new application with one key pair per environment and type and every method enabled. */
export function createApplication(ctx: EngineContext, input: z.output<typeof createApplicationSchema>): SeededApplication {
  const id = input.id ?? `app_${randomBase62(16)}`;
  ctx.write(() => {
    if (ctx.db.prepare('SELECT 1 FROM applications WHERE id = ?').get(id)) {
      throw new ControlError('CONFLICT', `An application ${id} already exists.`, { id: ['is used by another application'] });
    }
    ctx.db
      .prepare('INSERT INTO applications (id, ref, name, status, live_approved, currency, webhook_url, webhook_secret) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL)')
      .run(id, randomUUID(), input.name, input.status, Number(input.liveApproved), input.currency);
    for (const environment of ENVIRONMENTS) for (const type of KEY_TYPES) insertKey(ctx, id, environment, type, []);
    ctx.db.prepare('INSERT INTO app_methods (app_id, code, payments, payouts) SELECT ?, code, 1, 1 FROM methods').run(id);
    ctx.queueEvent({ type: 'extension', topic: 'application.changed', data: { appId: id } });
  });
  return getApplication(ctx, id);
}

export function updateApplication(ctx: EngineContext, appId: string, input: z.output<typeof updateApplicationSchema>): SeededApplication {
  ctx.write(() => {
    getApplication(ctx, appId);
    if (input.name !== undefined) ctx.db.prepare('UPDATE applications SET name = ? WHERE id = ?').run(input.name, appId);
    if (input.status !== undefined) ctx.db.prepare('UPDATE applications SET status = ? WHERE id = ?').run(input.status, appId);
    if (input.liveApproved !== undefined) ctx.db.prepare('UPDATE applications SET live_approved = ? WHERE id = ?').run(Number(input.liveApproved), appId);
    ctx.queueEvent({ type: 'extension', topic: 'application.changed', data: { appId } });
  });
  return getApplication(ctx, appId);
}

function findKey(ctx: EngineContext, publicKey: string): { app: SeededApplication; key: SeededKey } {
  for (const app of seededApplications(ctx.db)) {
    const key = app.keys.find((candidate) => candidate.publicKey === publicKey);
    if (key) return { app, key };
  }
  throw new ControlError('NOT_FOUND', `No API key ${publicKey}.`);
}

export function createKey(ctx: EngineContext, appId: string, input: z.output<typeof createKeySchema>): SeededApplication {
  ctx.write(() => {
    getApplication(ctx, appId);
    insertKey(ctx, appId, input.environment, input.type, input.ipWhitelist);
    ctx.queueEvent({ type: 'extension', topic: 'application.changed', data: { appId } });
  });
  return getApplication(ctx, appId);
}

export function updateKey(ctx: EngineContext, publicKey: string, input: z.output<typeof updateKeySchema>): SeededKey {
  return ctx.write(() => {
    const { app } = findKey(ctx, publicKey);
    if (input.active !== undefined) ctx.db.prepare('UPDATE api_keys SET active = ? WHERE public_key = ?').run(Number(input.active), publicKey);
    if (input.ipWhitelist !== undefined) ctx.db.prepare('UPDATE api_keys SET ip_whitelist = ? WHERE public_key = ?').run(JSON.stringify(input.ipWhitelist), publicKey);
    ctx.queueEvent({ type: 'extension', topic: 'application.changed', data: { appId: app.id } });
    return findKey(ctx, publicKey).key;
  });
}

/** A new secret for the same public key: requests signed with the old one fail from now on. */
export function rotateKeySecret(ctx: EngineContext, publicKey: string): SeededKey {
  return ctx.write(() => {
    const { app, key } = findKey(ctx, publicKey);
    ctx.db.prepare('UPDATE api_keys SET secret_key = ? WHERE public_key = ?').run(`sk_${key.environment}_${key.type}_${randomBase62(40)}`, publicKey);
    ctx.queueEvent({ type: 'extension', topic: 'application.changed', data: { appId: app.id } });
    return findKey(ctx, publicKey).key;
  });
}
