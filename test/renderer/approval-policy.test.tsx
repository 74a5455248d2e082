/**
 * The approval policy editor (issue 25 item 1): an admin edits one environment's and currency's
 * tiers (amounts typed in the currency's units, saved as smallest-unit integers); tiers out of
 * order, twice the same amount, negative or fractional XAF are refused field by field and nothing
 * is sent; a valid table is asked as it reads (a second admin applies it, on the People screen). A finance login reads the policy, told why; a
 * single desktop is told that a policy needs a team workspace.
 */
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalTier } from '../../shared/api';
import { validateTiers } from '../../renderer/src/screens/approvalPolicyForm';
import { createFakeApi, fail, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

const tier = (minAmount: number, approvals: 0 | 1 | 2, overrides: Partial<ApprovalTier> = {}): ApprovalTier => ({
  environment: 'sandbox', currency: 'XAF', minAmount, approvals, approverRole: 'finance', updatedBy: 'adele', ...overrides,
});

function workspace(roles: string[], tiers: ApprovalTier[]) {
  const api = createFakeApi({
    'approvals:status': () => ok({ available: true as const, login: roles.includes('admin') ? 'adele' : 'fatou', roles }),
    'approvals:list': () => ok({ requests: [] }),
    'approvals:policy': () => ok({ tiers }),
    'people:askPolicy': (input) => ok({ id: 7, kind: 'policy' as const, change: { ...input }, state: 'awaiting' as const, requestedBy: 'adele', requestedAt: '2026-11-25T12:00:00.000Z', decidedBy: null, mine: true }),
  });
  return api;
}

describe('validateTiers', () => {
  const row = (from: string) => ({ from, approvals: 1 as const, approverRole: 'finance' as const });
  it('turns typed amounts into smallest-unit integers, in order', () => {
    expect(validateTiers([row('0'), row('100 000'), row('1,000,000')], 'XAF')).toEqual({
      ok: true,
      tiers: [{ minAmount: 0, approvals: 1, approverRole: 'finance' }, { minAmount: 100_000, approvals: 1, approverRole: 'finance' }, { minAmount: 1_000_000, approvals: 1, approverRole: 'finance' }],
    });
    expect(validateTiers([row('1234.5')], 'USD')).toEqual({ ok: true, tiers: [{ minAmount: 123_450, approvals: 1, approverRole: 'finance' }] });
  });
  it('names the refused field of each row', () => {
    expect(validateTiers([row('500'), row('100'), row('100'), row(''), row('-5'), row('2.5'), row('9'.repeat(20))], 'XAF')).toEqual({
      ok: false,
      errors: [null, 'notAscending', 'notAscending', 'required', 'negative', 'notWhole', 'tooLarge'],
    });
    expect(validateTiers([row('100'), row('100')], 'XAF')).toEqual({ ok: false, errors: [null, 'duplicate'] });
    expect(validateTiers([row('1.234')], 'USD')).toEqual({ ok: false, errors: ['tooManyDecimals'] });
  });
});

describe('the approval policy section', () => {
  it('lets an admin add, edit and remove tiers, refuses bad ones by field, and saves the table as it reads', async () => {
    const api = workspace(['admin'], [tier(100_000, 1), tier(1_000_000, 2, { approverRole: 'admin' })]);
    const { user } = await renderApp(api, { screen: 'approvals' });
    const section = await screen.findByRole('region', { name: 'Approval policy' });
    expect(within(section).getByText('Sandbox, from 100,000 XAF: one approval by finance')).toBeTruthy();
    const form = await within(section).findByRole('form', { name: 'Approval policy tiers' });
    expect((within(form).getByLabelText('Tier 2: from amount (XAF)') as HTMLInputElement).value).toBe('1000000');

    // Out of order, then twice the same amount: refused field by field, nothing saved.
    await user.click(within(form).getByRole('button', { name: 'Add a tier' }));
    await user.type(within(form).getByLabelText('Tier 3: from amount (XAF)'), '50000');
    await user.click(within(form).getByRole('button', { name: 'Ask to change the Sandbox XAF policy' }));
    expect(within(form).getByLabelText('Tier 3: from amount (XAF)').getAttribute('aria-invalid')).toBe('true');
    expect(within(form).getByRole('alert').textContent).toBe('List the tiers in ascending order: this amount is below the tier above it.');
    await user.clear(within(form).getByLabelText('Tier 3: from amount (XAF)'));
    await user.type(within(form).getByLabelText('Tier 3: from amount (XAF)'), '1000000');
    await user.click(within(form).getByRole('button', { name: 'Ask to change the Sandbox XAF policy' }));
    expect(within(form).getByRole('alert').textContent).toBe('Two tiers cannot start from the same amount: they would overlap.');
    await user.clear(within(form).getByLabelText('Tier 3: from amount (XAF)'));
    await user.type(within(form).getByLabelText('Tier 3: from amount (XAF)'), '2.5');
    await user.click(within(form).getByRole('button', { name: 'Ask to change the Sandbox XAF policy' }));
    expect(within(form).getByRole('alert').textContent).toBe('Enter a whole number of XAF (it has no smaller unit).');
    expect(api.callsOf('people:askPolicy')).toEqual([]);

    // Fixed: 5,000,000 XAF needs two admins; the first tier goes; saved as integers.
    await user.clear(within(form).getByLabelText('Tier 3: from amount (XAF)'));
    await user.type(within(form).getByLabelText('Tier 3: from amount (XAF)'), '5 000 000');
    await user.selectOptions(within(form).getByLabelText('Tier 3: approvals needed'), 'two approvals');
    await user.selectOptions(within(form).getByLabelText('Tier 3: approver role'), 'by an admin');
    await user.click(within(form).getByRole('button', { name: 'Remove tier 1' }));
    await user.click(within(form).getByRole('button', { name: 'Ask to change the Sandbox XAF policy' }));
    expect(await within(section).findByRole('status')).toBeTruthy();
    expect(api.callsOf('people:askPolicy')).toEqual([
      { environment: 'sandbox', currency: 'XAF', tiers: [{ minAmount: 1_000_000, approvals: 2, approverRole: 'admin' }, { minAmount: 5_000_000, approvals: 2, approverRole: 'admin' }] },
    ]);
    // Asked, not applied: the summary still reads the policy in force, and the notice says who applies the change.
    expect(within(section).getByRole('status').textContent).toMatch(/Change #7 to the Sandbox XAF policy is asked\. It takes effect when a second admin/);
    expect(within(section).getByText('Sandbox, from 100,000 XAF: one approval by finance')).toBeTruthy();
  });

  it('shows what the database refused', async () => {
    const api = workspace(['admin'], []);
    api.handlers['people:askPolicy'] = async () => fail('APPROVAL_NOT_ALLOWED', 'Only a workspace admin may change the approval policy.');
    const { user } = await renderApp(api, { screen: 'approvals' });
    const form = await screen.findByRole('form', { name: 'Approval policy tiers' });
    await user.selectOptions(within(form).getByLabelText('Environment'), 'Live');
    await user.click(within(form).getByRole('button', { name: 'Add a tier' }));
    await user.type(within(form).getByLabelText('Tier 1: from amount (XAF)'), '0');
    await user.click(within(form).getByRole('button', { name: 'Ask to change the Live XAF policy' }));
    expect(await screen.findByText(/Only a workspace admin may change the approval policy/)).toBeTruthy();
    expect(api.callsOf('people:askPolicy')).toEqual([{ environment: 'live', currency: 'XAF', tiers: [{ minAmount: 0, approvals: 1, approverRole: 'finance' }] }]);
  });

  it('is read-only for finance, with why', async () => {
    const api = workspace(['finance'], [tier(100_000, 1)]);
    await renderApp(api, { screen: 'approvals' });
    const section = await screen.findByRole('region', { name: 'Approval policy' });
    expect(await within(section).findByText(/Only a workspace admin changes the policy; you are signed in with the role finance,/)).toBeTruthy();
    expect((within(section).getByLabelText('Tier 1: from amount (XAF)') as HTMLInputElement).readOnly).toBe(true);
    expect(within(section).queryByRole('button', { name: /Save/ })).toBeNull();
    expect(within(section).queryByRole('button', { name: 'Add a tier' })).toBeNull();
  });

  it('says a policy needs a team workspace on a single desktop', async () => {
    const api = createFakeApi({ 'approvals:status': () => ok({ available: false as const }) });
    await renderApp(api, { screen: 'approvals' });
    const section = await screen.findByRole('region', { name: 'Approval policy' });
    expect(within(section).getByText(/An approval policy needs a team workspace/)).toBeTruthy();
    expect(api.callsOf('approvals:policy')).toEqual([]);
  });
});
