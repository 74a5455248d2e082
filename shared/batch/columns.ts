/**
 * The CSV columns of a batch file and the header names read for each: the machine name
 * (`phone_number`) and the template's header in English and French, compared without case,
 * accents, spaces or dashes; `meta.KEY` columns carry metadata.
 */
import { BATCH_COLUMNS, META_PREFIX, type BatchColumn } from '../api/batch';
import { resources } from '../i18n';
import { LANGUAGES } from '../i18n/types';

/**
 * A header as compared: no accents, case, spaces, dashes, underscores or dots, so that
 * `Téléphone ` → `telephone`, `E-mail` → `email`, `Phone number` and `phone_number` → `phonenumber`.
 */
export function normaliseHeader(header: string): string {
  return header
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s\u00a0_.\-'’]+/g, '');
}

/**
 * Headers people write in their own spreadsheets, beyond our template's (machine name and both
 * languages' template headers): the words a finance team uses in English and French. Compared
 * after normaliseHeader, so one spelling per word is enough here.
 */
const WRITTEN_HEADERS: Readonly<Record<BatchColumn, readonly string[]>> = {
  phone_number: ['phone', 'telephone', 'telephone number', 'mobile', 'mobile number', 'msisdn', 'numero', 'numero de telephone', 'tel', 'portable'],
  amount: ['amount', 'montant', 'somme'],
  first_name: ['first name', 'given name', 'prenom'],
  last_name: ['last name', 'surname', 'family name', 'nom', 'nom de famille'],
  email: ['email', 'e-mail', 'mail', 'email address', 'courriel', 'adresse email', 'adresse e-mail', 'adresse courriel'],
  description: ['description', 'libelle', 'motif'],
  external_id: ['external id', 'reference', 'reference externe', 'ref'],
  payment_method: ['payment method', 'method', 'moyen de paiement', 'methode'],
};

const ALIASES: ReadonlyMap<string, BatchColumn> = (() => {
  const map = new Map<string, BatchColumn>();
  for (const column of BATCH_COLUMNS) {
    map.set(normaliseHeader(column), column);
    for (const language of LANGUAGES) map.set(normaliseHeader(resources[language].batchCsv.columns[column]), column);
    for (const written of WRITTEN_HEADERS[column]) map.set(normaliseHeader(written), column);
  }
  return map;
})();

/** Headers our own exports add (the invalid-rows file's errors column): read back and ignored. */
const IGNORED: ReadonlySet<string> = new Set(
  ['errors', 'row_number'].flatMap((key) => [key, ...LANGUAGES.map((language) => normaliseHeader(resources[language].batchCsv.columns[key as 'errors' | 'row_number']))]),
);

export type HeaderMeaning = { kind: 'column'; column: BatchColumn } | { kind: 'meta'; key: string } | { kind: 'ignored' } | { kind: 'unknown' };

export function headerMeaning(header: string): HeaderMeaning {
  const trimmed = header.trim();
  if (trimmed.toLowerCase().startsWith(META_PREFIX)) {
    const key = trimmed.slice(META_PREFIX.length).trim();
    return key === '' ? { kind: 'unknown' } : { kind: 'meta', key };
  }
  const normalised = normaliseHeader(trimmed);
  const column = ALIASES.get(normalised);
  if (column) return { kind: 'column', column };
  if (IGNORED.has(normalised)) return { kind: 'ignored' };
  return { kind: 'unknown' };
}

/** The header names accepted for each column, as the unknown-column error lists them (template names first). */
export function acceptedHeaders(): string {
  return BATCH_COLUMNS.map((column) => {
    const names = [column, ...LANGUAGES.map((language) => resources[language].batchCsv.columns[column]), ...WRITTEN_HEADERS[column].filter((name) => /[\s-]/.test(name) || name !== column)];
    const distinct = [...new Map(names.map((name) => [normaliseHeader(name), name])).values()];
    return `${column} (${distinct.slice(1, 5).join(', ')})`.replace(' ()', '');
  }).join(', ');
}

/** The accepted columns as a reader of `language` names them: the column, then its template header in that language. */
export function acceptedHeadersIn(language: (typeof LANGUAGES)[number]): string {
  return BATCH_COLUMNS.map((column) => {
    const local = resources[language].batchCsv.columns[column];
    return normaliseHeader(local) === normaliseHeader(column) ? column : `${column} (${local})`;
  }).join(', ');
}

/** The error of a header naming no column: the columns accepted, so the user can rename it. */
export function unknownColumnError(position: number, header: string): string {
  return `column ${position} "${header.trim().slice(0, 60)}" is not a known column (accepted: ${acceptedHeaders()}, or meta.KEY for metadata)`;
}
