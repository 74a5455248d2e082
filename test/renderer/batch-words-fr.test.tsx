/**
 * A batch row's refusal in French: the tooltip of a refused row says the catalogue's sentence, not
 * the engine's English one; a rehearsal row that would end cancelled says it once, with no English
 * status word after it ("Cancelled cancelled").
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BatchDetail, BatchRow } from '../../shared/api';
import { applyLanguage } from '../../renderer/src/i18n';
import { createStores, StoresContext } from '../../renderer/src/stores';
import { BatchRowResult } from '../../renderer/src/screens/BatchRowResult';
import { BatchRehearsalCard } from '../../renderer/src/screens/BatchRehearsal';
import { countsOf } from './batchFake';
import { createFakeApi } from './fakeApi';

afterEach(cleanup);
beforeAll(async () => {
  await applyLanguage('fr');
});
afterAll(async () => {
  await applyLanguage('en');
});

function row(overrides: Partial<BatchRow>): BatchRow {
  return {
    rowNumber: 2,
    values: { phone_number: '+237650000001', amount: '5000', first_name: 'Awa', last_name: 'Fofana', email: 'awa@example.com', description: '', external_id: 'pay-1', payment_method: 'momo_cm', meta: {} },
    request: { payment_method: 'momo_cm', amount: 5000, phone_number: '+237650000001', customer: { first_name: 'Awa', last_name: 'Fofana', email: 'awa@example.com' }, external_id: 'pay-1' },
    errors: {},
    duplicates: [],
    externalId: 'pay-1',
    state: 'not_sent',
    journalId: null,
    transactionId: null,
    status: null,
    failedCode: null,
    fee: null,
    error: null,
    rehearsal: null,
    ...overrides,
  };
}

describe('batch rows in French', () => {
  it('a refused row’s tooltip says the catalogue’s French sentence, not the engine’s English', () => {
    const refused = row({ state: 'rejected', error: { code: 'VALIDATION_ERROR', message: 'A payout with this external_id already exists.' } });
    render(<BatchRowResult row={refused} batchState="done" />);
    const code = screen.getByText('VALIDATION_ERROR');
    expect(code.getAttribute('title')).toBe('Un transfert avec cette référence externe existe déjà\u00a0: le service n’accepte une référence externe qu’une fois.');
  });

  it('a refused row with a code only the catalogue knows gets the code’s French title', () => {
    const refused = row({ state: 'rejected', error: { code: 'INSUFFICIENT_FUNDS', message: 'The wallet balance (10) does not cover the amount plus fee (5100).' } });
    render(<BatchRowResult row={refused} batchState="done" />);
    expect(screen.getByText('INSUFFICIENT_FUNDS').getAttribute('title')).not.toMatch(/wallet balance/);
  });

  it('a rehearsal row that would end cancelled reads « Annulée » once', () => {
    const cancelled = row({ rehearsal: { state: 'accepted', status: 'cancelled', failedCode: null, code: null, message: null, wouldFail: true } });
    const stores = createStores(createFakeApi());
    stores.batch.setState({ wouldFail: { rows: [cancelled], total: 1 } });
    const detail: BatchDetail = {
      batch: {
        id: 'b1', fileName: 'paie.csv', state: 'draft', stateReason: null, profileId: 'local', profileName: 'Local sandbox', environment: 'sandbox', paymentMethod: 'momo_cm',
        concurrency: 4, totalAmount: 5000, counts: countsOf([cancelled]), fileHash: 'h', retryOf: null, createdAt: '2026-11-21T10:00:00.000Z', updatedAt: '2026-11-21T10:00:00.000Z', startedAt: null, finishedAt: null,
      },
      importedBefore: [],
      rehearsal: { at: '2026-11-21T10:00:00.000Z', rows: 1, accepted: 1, rejected: 0, wouldFail: 1 },
    };
    render(
      <StoresContext.Provider value={stores}>
        <BatchRehearsalCard detail={detail} />
      </StoresContext.Provider>,
    );
    const cells = within(screen.getByRole('table')).getAllByRole('cell');
    expect(cells[2]!.textContent?.trim()).toBe('Annulée');
  });
});
