/**
 * Who may use the control API: loopback callers with the admin token, and nobody else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkControlAccess, ControlError, isLoopbackAddress, startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { control } from './control';

let engine: EngineHandle;
beforeAll(async () => {
  engine = await startEngine({ db: ':memory:', port: 0, settleMs: 0 });
});
afterAll(async () => {
  await engine.stop();
});

describe('control API access', () => {
  it('answers 401 ADMIN_TOKEN_REQUIRED without a token, in the API envelope', async () => {
    const answer = await control(engine, 'GET', '/applications', undefined, {});
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ success: false, code: 'ADMIN_TOKEN_REQUIRED', message: expect.stringContaining('Bearer'), errors: [] });
  });

  it.each([
    ['a wrong token', 'Bearer adm_wrong_token_0000000000'],
    ['the token without Bearer', 'TOKEN'],
    ['Basic auth', 'Basic YWRtaW46YWRtaW4='],
  ])('answers 401 INVALID_ADMIN_TOKEN for %s', async (_name, header) => {
    const answer = await control(engine, 'GET', '/applications', undefined, { authorization: header.replace('TOKEN', engine.control.adminToken) });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('INVALID_ADMIN_TOKEN');
  });

  it('refuses every route (and unknown ones) without the token, changing nothing', async () => {
    for (const [method, path] of [['POST', '/reset'], ['PUT', '/maintenance'], ['POST', '/clock/advance'], ['GET', '/events'], ['GET', '/no-such-route']] as const) {
      const answer = await control(engine, method, path, method === 'GET' ? undefined : { enabled: true, seconds: 100 }, {});
      expect(answer.status, `${method} ${path}`).toBe(401);
    }
    expect(engine.control.maintenance()).toBe(false);
    expect(engine.clock.offsetSeconds()).toBe(0);
  });

  it('accepts the admin token (case-insensitive Bearer)', async () => {
    const answer = await control(engine, 'GET', '/applications', undefined, { authorization: `bearer ${engine.control.adminToken}` });
    expect(answer.status).toBe(200);
  });

  it('treats 127.0.0.0/8 and ::1 (also IPv4-mapped) as loopback and nothing else', () => {
    for (const address of ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ['10.0.0.5', '192.168.1.20', '::ffff:10.0.0.5', 'fe80::1', '2001:db8::1', '0.0.0.0', '::', '128.0.0.1', '', undefined]) {
      expect(isLoopbackAddress(address), String(address)).toBe(false);
    }
  });

  it('refuses a non-loopback caller with 403 LOOPBACK_ONLY even with the right token, before looking at the token', () => {
    const refusal = (address: string, authorization: string | undefined) => {
      try {
        checkControlAccess(address, authorization, engine.control.adminToken);
        return null;
      } catch (error) {
        expect(error).toBeInstanceOf(ControlError);
        return { status: (error as ControlError).status, code: (error as ControlError).code };
      }
    };
    expect(refusal('192.168.1.20', `Bearer ${engine.control.adminToken}`)).toEqual({ status: 403, code: 'LOOPBACK_ONLY' });
    expect(refusal('::ffff:10.0.0.5', undefined)).toEqual({ status: 403, code: 'LOOPBACK_ONLY' });
    expect(refusal('127.0.0.1', undefined)).toEqual({ status: 401, code: 'ADMIN_TOKEN_REQUIRED' });
    expect(refusal('::1', `Bearer ${engine.control.adminToken}`)).toBeNull();
  });

  it('answers any address with the token when told to (a team sandbox: controlFrom any), never without the right token', () => {
    const refusal = (address: string, authorization: string | undefined) => {
      try {
        checkControlAccess(address, authorization, engine.control.adminToken, 'any');
        return null;
      } catch (error) {
        return { status: (error as ControlError).status, code: (error as ControlError).code };
      }
    };
    expect(refusal('192.168.1.20', `Bearer ${engine.control.adminToken}`)).toBeNull();
    expect(refusal('192.168.1.20', undefined)).toEqual({ status: 401, code: 'ADMIN_TOKEN_REQUIRED' });
    expect(refusal('::ffff:10.0.0.5', 'Bearer adm_not_the_token_0123456789')).toEqual({ status: 401, code: 'INVALID_ADMIN_TOKEN' });
  });

  it('takes the token from the options, else from the seed, and refuses a weak one', async () => {
    const given = await startEngine({ db: ':memory:', port: 0, adminToken: 'dev-admin-token-0123456789' });
    expect(given.control.adminToken).toBe('dev-admin-token-0123456789');
    expect((await control(given, 'GET', '/clock')).status).toBe(200);
    await given.stop();
    await expect(startEngine({ db: ':memory:', port: 0, adminToken: 'short' })).rejects.toThrow(/adminToken must be 16 to 200 characters/);
    // A random token per start otherwise.
    expect(engine.control.adminToken).toMatch(/^adm_[A-Za-z0-9_-]{32}$/);
  });
});
