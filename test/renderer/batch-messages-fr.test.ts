/**
 * Bulk payouts in French (issue 16 item 7): every error the real shared/batch reader and checker
 * writes, for the file and for each cell, has a French sentence; English stays word for word.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checkRows, parseBatchCsv } from '../../shared/batch';
import { applyLanguage } from '../../renderer/src/i18n';
import { fieldMessageKey, translateFieldError } from '../../renderer/src/messages/fields';
import { fileErrorKey, translateFileError } from '../../renderer/src/messages/batchFile';

function fileErrors(text: string): string[] {
  const result = parseBatchCsv(text);
  return result.ok ? [] : result.errors;
}

const FILE_ERRORS = [
  ...fileErrors(''),
  ...fileErrors('phone_number,amount,first_name,last_name,colour\n'),
  ...fileErrors('phone_number,Téléphone,amount,first_name,last_name,email\n+1,+1,1,A,B,a@b.cm\n'),
  ...fileErrors('phone_number,amount,first_name,last_name,email\n"+1,1,A,B,a@b.cm\n'),
  ...fileErrors(`phone_number,amount,first_name,last_name,email\n${'+237650000001,1,A,B,a@b.cm\n'.repeat(10_001)}`),
];

const HEADER = 'phone_number,amount,first_name,last_name,email,description,external_id';
const parsed = parseBatchCsv(
  [
    HEADER,
    '2.3765E+11,12.5,,B,nope,x,SAME',
    '+237650000002,abc,A,B,a@b.cm,x,SAME',
    '+23765,100,A,B,a@b.cm',
    `650000004,,${'x'.repeat(120)},B,a@b.cm,x,bad id!`,
  ].join('\n'),
);
const CELL_ERRORS = parsed.ok ? checkRows(parsed.file.rows, { batchId: 'B1', defaultPaymentMethod: null }).flatMap((row) => Object.values(row.errors).flat()) : [];

describe('bulk payout errors in French', () => {
  afterAll(async () => {
    await applyLanguage('en');
  });

  it('collects the real errors (the test would prove nothing without)', () => {
    expect(FILE_ERRORS.length).toBeGreaterThanOrEqual(7);
    expect(new Set(CELL_ERRORS).size).toBeGreaterThanOrEqual(8);
  });

  it('knows every file and cell error the shared reader and checker write', () => {
    expect(FILE_ERRORS.filter((message) => fileErrorKey(message) === null)).toEqual([]);
    expect(CELL_ERRORS.filter((message) => fieldMessageKey(message) === null)).toEqual([]);
  });

  it('says them in French, with their values, and leaves English as it came', async () => {
    await applyLanguage('fr');
    const english = /\b(must|is|be|the|and|only|number|required|column|file|rows?|known|accepted|missing|cells|header)\b/;
    const french = [...FILE_ERRORS.map(translateFileError), ...CELL_ERRORS.map(translateFieldError)];
    expect(french.filter((text) => english.test(text.replace(/\(acceptées.*\)/, '')))).toEqual([]);
    expect(french).not.toContain('n’est pas valide');
    expect(translateFileError('column 6 "Colour" is not a known column (accepted: amount (montant), or meta.KEY for metadata)')).toBe(
      'la colonne 6 « Colour » n’est pas une colonne connue (acceptées : phone_number (telephone), amount (montant), first_name (prenom), last_name (nom), email, description, external_id (reference_externe), payment_method (moyen_de_paiement), ou meta.CLÉ pour les métadonnées)',
    );
    expect(translateFieldError('is the same as row 2: the service accepts an external id once')).toBe('est identique à la ligne 2 : le service n’accepte une référence externe qu’une seule fois');
    await applyLanguage('en');
    expect([...FILE_ERRORS.map(translateFileError), ...CELL_ERRORS.map(translateFieldError)]).toEqual([...FILE_ERRORS, ...CELL_ERRORS]);
  });
});
