/**
 * The Sandbox screen's service variants (issue 35 item 4) through the console's handlers on the
 * in-process engine: set, read back, the engine really answers that way (a 201 to the console's
 * own create), bad input refused at its field, and the channel's names and rules are the engine's.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESET_EVERY, SERVICE_VARIANTS, serviceVariantsSchema } from '@paydesk/sandbox';
import { SANDBOX_MAX_RESET_EVERY, SANDBOX_VARIANTS, sandboxVariantsSchema } from '../../shared/api';
import { sandboxControlFrom } from '../../electron/console/sandbox-engine';
import { HandlerFailure } from '../../electron/console/handlers/context';
import { expectFail, expectOk, nextEvent, paymentRequest, startRuntime } from './helpers';

let runtime: Awaited<ReturnType<typeof startRuntime>>;
beforeAll(async () => {
  runtime = await startRuntime();
});
afterAll(async () => {
  await runtime?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

/** The status the engine answered the latest POST /v1/payments with, from its request inspector. */
async function lastCreateStatus(): Promise<number | undefined> {
  const page = expectOk(await runtime.handlers['sandbox:requests']({ limit: 50 }));
  return page.requests.find((request) => request.method === 'POST' && request.path === '/v1/payments')?.status;
}

describe('sandbox:variants and sandbox:setVariants', () => {
  it('reads none by default, sets a set, reads it back, and the engine answers a create with 201', async () => {
    expect(expectOk(await runtime.handlers['sandbox:variants']({}))).toEqual({ enabled: [], resetEvery: 1 });

    const told = nextEvent(runtime, 'sandbox:event', (event) => event.detail?.startsWith('service variants') === true);
    // Given out of order: answered in the engine's order.
    const set = expectOk(await runtime.handlers['sandbox:setVariants']({ enabled: ['reset-after-create', 'created-201'], resetEvery: 1000 }));
    expect(set).toEqual({ enabled: ['created-201', 'reset-after-create'], resetEvery: 1000 });
    expect((await told).detail).toBe('service variants: created-201, reset-after-create');
    expect(expectOk(await runtime.handlers['sandbox:variants']({}))).toEqual(set);
    expect(runtime.engine?.control.variants.read()).toEqual(set);

    const created = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-variant-201' }) }));
    expect(created.transactionId).toMatch(/^TE_/);
    expect(await lastCreateStatus()).toBe(201);

    expect(expectOk(await runtime.handlers['sandbox:setVariants']({ enabled: [] }))).toEqual({ enabled: [], resetEvery: 1 });
    expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-variant-200' }) }));
    expect(await lastCreateStatus()).toBe(200);
  });

  it('refuses bad input at the field it names, and changes nothing', async () => {
    expectOk(await runtime.handlers['sandbox:setVariants']({ enabled: ['bare-429'] }));
    const unknown = expectFail(await runtime.handlers['sandbox:setVariants']({ enabled: ['bare-429', 'slow'] }), 'INVALID_INPUT');
    expect(Object.keys(unknown.fields ?? {})).toEqual(['enabled.1']);
    expect(unknown.fields?.['enabled.1']?.[0]).toMatch(/^must be one of duplicates-accepted, /);
    const twice = expectFail(await runtime.handlers['sandbox:setVariants']({ enabled: ['bare-429', 'bare-429'] }), 'INVALID_INPUT');
    expect(twice.fields).toEqual({ enabled: ['must name each variant at most once'] });
    const zero = expectFail(await runtime.handlers['sandbox:setVariants']({ enabled: ['reset-after-create'], resetEvery: 0 }), 'INVALID_INPUT');
    expect(zero.fields).toEqual({ resetEvery: ['must be 1 or more'] });
    const half = expectFail(await runtime.handlers['sandbox:setVariants']({ enabled: ['reset-after-create'], resetEvery: 2.5 }), 'INVALID_INPUT');
    expect(half.fields).toEqual({ resetEvery: ['must be a whole number'] });
    const extra = expectFail(await runtime.handlers['sandbox:setVariants']({ enabled: [], colour: 'red' }), 'INVALID_INPUT');
    expect(extra.fields).toEqual({ colour: ['is not a known field'] });
    expect(expectOk(await runtime.handlers['sandbox:variants']({}))).toEqual({ enabled: ['bare-429'], resetEvery: 1 });
    expectOk(await runtime.handlers['sandbox:setVariants']({ enabled: [] }));
  });

  it('passes the input to the engine’s own schema, whose refusal names the field', () => {
    const control = sandboxControlFrom(runtime.engine!);
    let thrown: unknown;
    try {
      control.setVariants({ enabled: ['slow' as never] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HandlerFailure);
    expect((thrown as HandlerFailure).code).toBe('INVALID_INPUT');
    expect(Object.keys((thrown as HandlerFailure).extra.fields ?? {})).toEqual(['enabled.0']);
    expect(runtime.engine?.control.variants.read()).toEqual({ enabled: [], resetEvery: 1 });
  });
});

describe('the channel’s variants are the engine’s', () => {
  it('has the same names in the same order, and the same largest resetEvery', () => {
    expect([...SANDBOX_VARIANTS]).toEqual([...SERVICE_VARIANTS]);
    expect(SANDBOX_MAX_RESET_EVERY).toBe(MAX_RESET_EVERY);
  });

  it('accepts and refuses what the engine’s schema does, at the same fields', () => {
    const inputs: unknown[] = [
      { enabled: [] },
      { enabled: [...SERVICE_VARIANTS] },
      { enabled: ['reset-after-create'], resetEvery: 1 },
      { enabled: ['reset-after-create'], resetEvery: MAX_RESET_EVERY },
      { enabled: ['reset-after-create'], resetEvery: MAX_RESET_EVERY + 1 },
      { enabled: ['reset-after-create'], resetEvery: 0 },
      { enabled: ['reset-after-create'], resetEvery: 1.5 },
      { enabled: ['reset-after-create'], resetEvery: '3' },
      { enabled: ['created-201', 'created-201'] },
      { enabled: ['created-201', 'slow'] },
      { enabled: 'created-201' },
      { enabled: [], colour: 'red' },
      {},
    ];
    const verdict = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
      result.success ? 'ok' : result.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).sort().join('; ');
    for (const input of inputs) {
      expect(verdict(sandboxVariantsSchema.safeParse(input)), JSON.stringify(input)).toBe(verdict(serviceVariantsSchema.safeParse(input)));
    }
  });
});

describe('without the local engine', () => {
  it('answers SANDBOX_UNAVAILABLE to both channels', async () => {
    const other = await startRuntime({ engine: false });
    try {
      expectFail(await other.handlers['sandbox:variants']({}), 'SANDBOX_UNAVAILABLE');
      expectFail(await other.handlers['sandbox:setVariants']({ enabled: ['created-201'] }), 'SANDBOX_UNAVAILABLE');
    } finally {
      await other.close();
      rmSync(other.dir, { recursive: true, force: true });
    }
  });
});
