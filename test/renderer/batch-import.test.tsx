import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBatchBackend, withLayout } from './batchFake';
import { createFakeApi } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);
const layout = withLayout();
beforeAll(layout.install);
afterAll(layout.remove);

/** As Excel writes it in a French locale: BOM, `;`, French number grouping in one amount. */
const FRENCH_EXCEL = [
  '\uFEFFphone_number;amount;first_name;last_name;email;description;meta.region',
  '+237650000001;15 000;Awa;Nkemdirim;awa@example.com;Commission;Littoral',
  '+237650000002;5000;Jean;Mbarga;jean@example;Avance;Centre',
  '+237650000003;2500;Chantal;Essomba;chantal@example.com;Remboursement;Littoral',
].join('\r\n');

async function importCsv(text: string, name = 'payouts.csv') {
  const backend = createBatchBackend();
  const api = createFakeApi(backend.handlers);
  const view = await renderApp(api, { screen: 'batches' });
  await screen.findByRole('heading', { level: 1, name: 'Bulk payouts' });
  await view.user.upload(screen.getByLabelText('CSV file of payouts'), new File([text], name, { type: 'text/csv' }));
  await screen.findByRole('heading', { level: 1, name: name });
  return { ...view, api, backend };
}

const table = () => screen.getByRole('table', { name: /Rows of the batch/ });

describe('New batch: import and validation table', () => {
  it('imports a semicolon file with a BOM and shows each bad cell with its error next to it', async () => {
    const { api } = await importCsv(FRENCH_EXCEL);
    expect(api.callsOf('batches:import')).toEqual([expect.objectContaining({ fileName: 'payouts.csv', paymentMethod: 'service_demo' })]);
    const rows = within(table()).getAllByRole('row');
    // header + 3 rows (jsdom lays nothing out, so the virtual list shows its overscan, which covers them).
    expect(rows).toHaveLength(4);
    const bad = rows[2]!;
    const email = within(bad).getByRole('button', { name: /Edit Email of row 3/ });
    expect(email.getAttribute('aria-invalid')).toBe('true');
    const error = document.getElementById(email.getAttribute('aria-describedby')!)!;
    expect(error.textContent).toMatch(/valid email/);
    expect(within(rows[1]!).getByText('15,000 XAF')).toBeTruthy();
    expect(within(rows[1]!).getByText('region=Littoral')).toBeTruthy();
    expect(screen.getByText('1 invalid row: fix it in the table or drop it.')).toBeTruthy();
    // Nothing can be previewed or sent while a row is invalid.
    expect(screen.getByText('Fix or drop the invalid rows first.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Review and send' })).toHaveProperty('disabled', true);
    expect(api.callsOf('batches:preview')).toEqual([]);
  });

  it('fixes a cell in place (Enter saves), after which the preview is computed with fees and the wallet', async () => {
    const { api, user } = await importCsv(FRENCH_EXCEL);
    await user.click(screen.getByRole('button', { name: /Edit Email of row 3/ }));
    const input = screen.getByRole('textbox', { name: 'Edit Email of row 3' });
    await user.clear(input);
    await user.type(input, 'jean@example.com{Enter}');
    expect(api.callsOf('batches:updateRow')).toEqual([{ batchId: 'b1', rowNumber: 3, values: { email: 'jean@example.com' } }]);
    expect(await screen.findByText('Every row is valid.')).toBeTruthy();
    // Focus is back on the cell just edited, not lost to <body>.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: /Edit Email of row 3/ })));
    const preview = screen.getByRole('region', { name: 'Preview' });
    // 15,000 + 5,000 + 2,500; fees 1 % + 50 each: 200 + 100 + 75.
    expect(await within(preview).findByText('22,500 XAF')).toBeTruthy();
    expect(within(preview).getByText('375 XAF')).toBeTruthy();
    expect(within(preview).getByText('22,875 XAF')).toBeTruthy();
    expect(within(preview).getByText('10,000,000 XAF')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Review and send' })).toHaveProperty('disabled', false);
  });

  it('Escape leaves a cell unchanged and sends nothing', async () => {
    const { api, user } = await importCsv(FRENCH_EXCEL);
    await user.click(screen.getByRole('button', { name: /Edit Amount of row 2/ }));
    await user.type(screen.getByRole('textbox', { name: 'Edit Amount of row 2' }), '9{Escape}');
    expect(screen.getByRole('button', { name: /Edit Amount of row 2/ }).textContent).toBe('15,000 XAF');
    expect(api.callsOf('batches:updateRow')).toEqual([]);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: /Edit Amount of row 2/ }));
  });

  it('a cell left with Tab keeps focus where Tab put it', async () => {
    const { user } = await importCsv(FRENCH_EXCEL);
    await user.click(screen.getByRole('button', { name: /Edit First name of row 2/ }));
    await user.tab();
    await waitFor(() => expect(screen.queryByRole('textbox', { name: 'Edit First name of row 2' })).toBeNull());
    expect(document.activeElement).toBe(screen.getByRole('button', { name: /Edit Last name of row 2/ }));
  });

  it('drops the invalid rows, filters rows, and asks main for the invalid rows as CSV', async () => {
    const { api, user } = await importCsv(FRENCH_EXCEL);
    await user.click(screen.getByRole('radio', { name: 'Invalid (1)' }));
    expect(within(table()).getAllByRole('row')).toHaveLength(2);
    await user.click(screen.getByRole('button', { name: 'Download the invalid rows (CSV)' }));
    await waitFor(() => expect(api.callsOf('batches:invalidRows')).toEqual([{ batchId: 'b1', language: 'en' }]));
    await user.click(screen.getByRole('button', { name: 'Drop the invalid row' }));
    // It asks once, saying how many rows go; Cancel has the focus and drops nothing.
    let dialog = screen.getByRole('dialog', { name: 'Drop the invalid row?' });
    expect(within(dialog).getByText(/^1 row will be removed from this batch/)).toBeTruthy();
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.callsOf('batches:dropRows')).toEqual([]);
    expect(screen.getByText('1 invalid row: fix it in the table or drop it.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Drop the invalid row' }));
    dialog = screen.getByRole('dialog', { name: 'Drop the invalid row?' });
    await user.click(within(dialog).getByRole('button', { name: 'Drop' }));
    expect(await screen.findByText('Every row is valid.')).toBeTruthy();
    // The Drop button went with the rows: focus is on the section's heading, not lost to <body>.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { level: 2, name: 'Rows' })));
    expect(api.callsOf('batches:dropRows')).toEqual([{ batchId: 'b1', invalid: true }]);
    // The Invalid list is empty now: the filter falls back to All, never "No rows match this filter" (issue 37 item 7).
    await waitFor(() => expect(screen.getByRole('radio', { name: 'All rows (2)' })).toHaveProperty('checked', true));
    expect(screen.getByRole('radio', { name: 'Invalid (0)' })).toHaveProperty('disabled', true);
    await waitFor(() => expect(within(table()).getAllByRole('row')).toHaveLength(3));
    expect(screen.queryByText('No rows match this filter.')).toBeNull();
  });

  it('flags the same phone and amount, and a repeated external id, on the rows concerned', async () => {
    const text = [
      'phone_number,amount,first_name,last_name,email,external_id',
      '+237650000001,1000,A,B,a@example.com,pay-1',
      '+237650000001,1000,C,D,c@example.com,pay-2',
      '+237650000004,2000,E,F,e@example.com,pay-1',
    ].join('\n');
    await importCsv(text);
    const rows = within(table()).getAllByRole('row');
    const flag = within(rows[1]!).getByText('Same phone and amount as row 3 · Same external_id as row 4');
    // Its own place under the row, not inside the Metadata cell (issue 37 item 7).
    expect(flag.closest('[role="cell"]')!.className).toContain('row-flags');
    const cells = within(rows[1]!).getAllByRole('cell');
    expect(cells.find((cell) => cell.classList.contains('row-flags'))).toBe(cells[cells.length - 1]);
    for (const cell of cells.slice(0, -1)) expect(cell.textContent).not.toMatch(/Same phone|Same external_id/);
    expect(within(rows[2]!).getByText('Same phone and amount as row 2')).toBeTruthy();
    expect(within(rows[3]!).getByText(/is the same as row 2/)).toBeTruthy();
    expect(screen.getByText('3 rows look like duplicates. Check them before sending.')).toBeTruthy();
  });

  it('refuses a file that is not CSV in the page, and shows main’s precise refusal of a bad CSV', async () => {
    const backend = createBatchBackend();
    const api = createFakeApi(backend.handlers);
    const { user } = await renderApp(api, { screen: 'batches' });
    const input = await screen.findByLabelText('CSV file of payouts');
    // A drop (or a picker told to show all files) can hand over any file.
    await userEvent.setup({ applyAccept: false }).upload(input, new File(['x'], 'payouts.xlsx', { type: 'application/vnd.ms-excel' }));
    expect(screen.getByRole('alert').textContent).toBe('payouts.xlsx is not a CSV file. Choose a .csv file.');
    await user.upload(input, new File(['phone_number,amount\n+237650000001,100'], 'short.csv', { type: 'text/csv' }));
    await screen.findByText('The file could not be imported.');
    const problems = screen.getByRole('list', { name: 'What is wrong with the file' });
    expect(within(problems).getAllByRole('listitem').map((item) => item.textContent).join(' ')).toMatch(/first_name/);
    expect(api.callsOf('batches:import')).toHaveLength(1);
  });

  it('refuses, in the browser console, a file larger than the browser host takes, before sending it', async () => {
    const backend = createBatchBackend();
    const api = createFakeApi(backend.handlers);
    const { user } = await renderApp(api, { screen: 'batches' });
    const big = `phone_number,amount,first_name,last_name,email\n${'+237650000001,1000,Awa,Nkemdirim,awa@example.com\n'.repeat(6000)}`;
    await user.upload(await screen.findByLabelText('CSV file of payouts'), new File([big], 'big.csv', { type: 'text/csv' }));
    expect((await screen.findByRole('alert')).textContent).toBe('big.csv (288 KB) is larger than the browser console takes (240 KB). Split it into smaller files, or import it in the desktop app.');
    expect(api.callsOf('batches:import')).toEqual([]);
  });

  it('lists past batches with their state, and reopens one', async () => {
    const backend = createBatchBackend();
    const api = createFakeApi(backend.handlers);
    const { user } = await renderApp(api, { screen: 'batches' });
    await user.upload(await screen.findByLabelText('CSV file of payouts'), new File([FRENCH_EXCEL], 'march.csv', { type: 'text/csv' }));
    await screen.findByRole('heading', { level: 1, name: 'march.csv' });
    backend.update('b1', 'interrupted');
    await user.click(screen.getByRole('button', { name: '← All batches' }));
    const open = await screen.findByRole('button', { name: 'Open batch march.csv, Interrupted' });
    await user.click(open);
    expect(await screen.findByText('This batch was interrupted')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Look up and resume' })).toBeTruthy();
  });
});
