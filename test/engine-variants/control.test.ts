/**
 * How variants are chosen: `PUT/GET /_sandbox/variants` (validated, 422 naming the field), the
 * `variants` option of startEngine, the sandbox helper and the CLI's --variant / --reset-every.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliArgs, UsageError } from '../../packages/sandbox/src/cli';
import { SERVICE_VARIANTS, startEngine, type EngineEvent, type EngineHandle } from '../../packages/sandbox/src/engine';
import { startSandbox } from '../../packages/sandbox/src/index';
import { control, data } from '../engine-control/control';

let engine: EngineHandle;
beforeAll(async () => {
  engine = await startEngine({ db: ':memory:', port: 0, settleMs: 0, variants: ['created-201'] });
});
afterAll(async () => {
  await engine.stop();
});

interface VariantsView {
  enabled: string[];
  resetEvery: number;
  known: { name: string; description: string }[];
}

describe('control API /_sandbox/variants', () => {
  it('reads the variants given at start, with the catalogue', async () => {
    const view = data(await control<VariantsView>(engine, 'GET', '/variants'));
    expect(view).toMatchObject({ enabled: ['created-201'], resetEvery: 1 });
    expect(view.known.map((variant) => variant.name)).toEqual([...SERVICE_VARIANTS]);
    expect(data(await control<{ variants: unknown }>(engine, 'GET', '/settings')).variants).toEqual({ enabled: ['created-201'], resetEvery: 1 });
  });

  it('replaces them with PUT (catalogue order), announces it on the event stream, and [] is the default engine', async () => {
    const events: EngineEvent[] = [];
    const unsubscribe = engine.onEvent((event) => events.push(event));
    const answer = await control<VariantsView>(engine, 'PUT', '/variants', { enabled: ['reset-after-create', 'nulls-omitted'], resetEvery: 3 });
    unsubscribe();
    expect(answer.body.message).toBe('Service variants on: nulls-omitted, reset-after-create.');
    expect(data(answer)).toMatchObject({ enabled: ['nulls-omitted', 'reset-after-create'], resetEvery: 3 });
    expect(engine.control.variants.read()).toEqual({ enabled: ['nulls-omitted', 'reset-after-create'], resetEvery: 3 });
    expect(events).toContainEqual({ type: 'extension', topic: 'service.variants', data: { enabled: ['nulls-omitted', 'reset-after-create'], resetEvery: 3 } });

    const off = await control<VariantsView>(engine, 'PUT', '/variants', { enabled: [] });
    expect(off.body.message).toBe('No service variant: the default engine.');
    expect(data(off)).toMatchObject({ enabled: [], resetEvery: 1 });
  });

  it.each([
    [{ enabled: ['duplicates-accepted', 'sometimes-slow'] }, 'enabled.1', /must be one of duplicates-accepted, nulls-omitted, .*reset-after-create/],
    [{ enabled: 'nulls-omitted' }, 'enabled', /must be a list of variant names/],
    [{ enabled: ['nulls-omitted', 'nulls-omitted'] }, 'enabled', /must name each variant at most once/],
    [{}, 'enabled', /must be a list of variant names/],
    [{ enabled: [], resetEvery: 0 }, 'resetEvery', /must be 1 or more/],
    [{ enabled: [], resetEvery: 1.5 }, 'resetEvery', /must be a whole number/],
    [{ enabled: [], resetEvery: '2' }, 'resetEvery', /must be a number/],
    [{ enabled: [], resetEvery: 1001 }, 'resetEvery', /must be at most 1000/],
    [{ enabled: [], colour: 'blue' }, 'colour', /is not a known field/],
  ])('refuses %j with 422 naming %s, and keeps the variants in force', async (body, field, message) => {
    engine.control.variants.set(['bare-429']);
    const answer = await control(engine, 'PUT', '/variants', body);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect((answer.body.errors as Record<string, string[]>)[field]?.join(' ')).toMatch(message);
    expect(engine.control.variants.read().enabled).toEqual(['bare-429']);
  });

  it('refuses a body that is not JSON, and a caller without the admin token', async () => {
    expect((await control(engine, 'PUT', '/variants', '{"enabled": [', { authorization: `Bearer ${engine.control.adminToken}`, 'content-type': 'application/json' })).body.code).toBe('MALFORMED_REQUEST');
    const anonymous = await control(engine, 'PUT', '/variants', { enabled: [] }, {});
    expect(anonymous.status).toBe(401);
    expect(engine.control.variants.read().enabled).toEqual(['bare-429']);
  });
});

describe('library', () => {
  it('startEngine refuses an unknown variant with a RangeError naming it, before listening', async () => {
    await expect(startEngine({ db: ':memory:', port: 0, variants: ['nulls-omitted', 'bogus' as never] })).rejects.toThrow(/invalid service variants: enabled\.1: must be one of/);
    await expect(startEngine({ db: ':memory:', port: 0, variants: { enabled: ['reset-after-create'], resetEvery: -1 } })).rejects.toThrow(RangeError);
  });

  it('startSandbox takes variants and setVariants replaces them, refusing bad ones', async () => {
    const sandbox = await startSandbox({ variants: { enabled: ['created-201'] } });
    try {
      const body = { payment_method: 'service_demo', amount: 100, phone_number: '+237650000001', customer: { first_name: 'A', last_name: 'B', email: 'a@example.com' } };
      expect((await sandbox.request('POST', '/v1/payments', body)).status).toBe(201);
      expect(sandbox.setVariants([])).toEqual({ enabled: [], resetEvery: 1 });
      expect((await sandbox.request('POST', '/v1/payments', body)).status).toBe(200);
      expect(() => sandbox.setVariants(['nope' as never])).toThrow(/invalid service variants: .*enabled\.0/);
      // The helper's request gives a page that is not JSON as its text.
      sandbox.setVariants(['gateway-html']);
      sandbox.engine.control.setMaintenance(true);
      const page = await sandbox.request('GET', '/v1/payments/TE_none');
      expect(page.status).toBe(503);
      expect(page.body).toMatch(/^<!DOCTYPE html>/);
    } finally {
      await sandbox.stop();
    }
  });
});

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'packages', 'sandbox', 'src', 'cli.ts');

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('CLI --variant and --reset-every', () => {
  it('reads a comma-separated list and a reset count', () => {
    expect(parseCliArgs(['--variant', 'gateway-html,bare-429']).variants).toEqual({ enabled: ['bare-429', 'gateway-html'], resetEvery: 1 });
    expect(parseCliArgs(['--variant=reset-after-create', '--reset-every', '5']).variants).toEqual({ enabled: ['reset-after-create'], resetEvery: 5 });
    expect(parseCliArgs([]).variants).toBeUndefined();
  });

  it.each([
    [['--variant', 'nulls-omitted,slow'], /--variant: unknown variant "slow"; known variants: duplicates-accepted, nulls-omitted, millisecond-timestamps, extra-fields, unlisted-status, created-201, bare-429, gateway-html, reset-after-create/],
    [['--variant', 'bare-429,bare-429'], /--variant names a variant twice/],
    [['--variant', 'bare-429,'], /--variant: unknown variant ""/],
    [['--reset-every', '2'], /--reset-every needs --variant reset-after-create/],
    [['--variant', 'bare-429', '--reset-every', '2'], /--reset-every needs --variant reset-after-create/],
    [['--variant', 'reset-after-create', '--reset-every', '0'], /--reset-every must be a whole number from 1 to 1000, got "0"/],
    [['--variant'], /--variant needs a value/],
  ])('refuses %j', (args, message) => {
    expect(() => parseCliArgs(args)).toThrow(UsageError);
    expect(() => parseCliArgs(args)).toThrow(message);
  });

  it('exits 2 with the known names on stderr for an unknown variant, before listening', async () => {
    const run = await runCli(['--port', '0', '--db', ':memory:', '--variant', 'sometimes-slow']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/paydesk sandbox: --variant: unknown variant "sometimes-slow"; known variants: duplicates-accepted, .*reset-after-create/);
    expect(run.stderr).toContain('--variant NAMES');
  });
});
