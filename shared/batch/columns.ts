/**
 * The CSV columns of a batch file and the header names read for each: the machine name
 * (`phone_number`) and the template's header in English and French, compared without case,
 * accents, spaces or dashes; `meta.KEY` columns carry metadata.
 */
import { BATCH_COLUMNS, META_PREFIX, type BatchColumn } from '../api/batch';
import { resources } from '../i18n';
import { LANGUAGES } from '../i18n/types';

/** `Téléphone ` → `telephone`, `E-mail` → `e_mail`. */
export function normaliseHeader(header: string): string {
  return header
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

const ALIASES: ReadonlyMap<string, BatchColumn> = (() => {
  const map = new Map<string, BatchColumn>();
  for (const column of BATCH_COLUMNS) {
    map.set(normaliseHeader(column), column);
    for (const language of LANGUAGES) map.set(normaliseHeader(resources[language].batchCsv.columns[column]), column);
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
