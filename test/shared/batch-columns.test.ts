/**
 * Headers people write in their own spreadsheets (issue 16 item 8): `E-mail`, `Courriel`,
 * `Téléphone`, `Montant` and case/accent/space variants mean the columns they name; an unknown
 * header's error lists the columns accepted.
 */
import { describe, expect, it } from 'vitest';
import { headerMeaning, parseBatchCsv } from '../../shared/batch';
import { unknownColumnError } from '../../shared/batch/columns';

describe('batch header aliases', () => {
  it.each([
    ['E-mail', 'email'],
    ['Courriel', 'email'],
    ['  COURRIEL ', 'email'],
    ['Téléphone', 'phone_number'],
    ['TELEPHONE', 'phone_number'],
    ['Numéro de téléphone', 'phone_number'],
    ['Phone Number', 'phone_number'],
    ['Montant', 'amount'],
    ['MONTANT', 'amount'],
    ['Prénom', 'first_name'],
    ['First name', 'first_name'],
    ['Last-Name', 'last_name'],
    ['Nom', 'last_name'],
    ['Référence externe', 'external_id'],
    ['Moyen de paiement', 'payment_method'],
    ['phone_number', 'phone_number'],
  ])('reads %j as %s', (header, column) => {
    expect(headerMeaning(header)).toEqual({ kind: 'column', column });
  });

  it('reads a French spreadsheet with written headers into checked rows', () => {
    const result = parseBatchCsv('Téléphone;Montant;Prénom;Nom;E-mail;Description\n+237650000001;5 000;Awa;Nkemdirim;awa@example.com;Octobre\n');
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.file.rows[0]!.values).toMatchObject({ phone_number: '+237650000001', amount: '5 000', first_name: 'Awa', email: 'awa@example.com' });
  });

  it('names the accepted columns when a header means none', () => {
    const result = parseBatchCsv('Téléphone,Montant,Prénom,Nom,Courriel,Colour\n+237650000001,5000,Awa,N,a@example.com,red\n');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toEqual([unknownColumnError(6, 'Colour')]);
      expect(result.errors[0]).toMatch(/^column 6 "Colour" is not a known column \(accepted: phone_number \(telephone/);
      for (const column of ['amount', 'first_name', 'last_name', 'email', 'description', 'external_id', 'payment_method', 'courriel', 'meta.KEY']) {
        expect(result.errors[0]).toContain(column);
      }
    }
  });

  it('still refuses two headers meaning the same column', () => {
    const result = parseBatchCsv('phone_number,Téléphone,amount,first_name,last_name,email\n+1,+1,1,A,B,a@example.com\n');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]).toMatch(/column 2 "Téléphone" repeats phone_number/);
  });
});
