/**
 * The console's catalogues, English and French, one namespace per area. Add a namespace as a pair
 * of files `en/<ns>.ts` and `fr/<ns>.ts` (the French one typed `Messages<typeof en>`) and list it
 * in both maps below. Data only: the renderer reads them through i18next, main (CSV headers of
 * exports) reads them directly.
 */
import enBatch from './en/batch';
import enBatchCsv from './en/batchCsv';
import enCommon from './en/common';
import enErrors from './en/errors';
import enFailed from './en/failed';
import frBatch from './fr/batch';
import frBatchCsv from './fr/batchCsv';
import frCommon from './fr/common';
import frErrors from './fr/errors';
import frFailed from './fr/failed';
import type { Language, Messages } from './types';

export const english = {
  common: enCommon,
  errors: enErrors,
  failed: enFailed,
  batch: enBatch,
  batchCsv: enBatchCsv,
} as const;

export type Catalogue = typeof english;
export type Namespace = keyof Catalogue;

const french: Messages<Catalogue> = {
  common: frCommon,
  errors: frErrors,
  failed: frFailed,
  batch: frBatch,
  batchCsv: frBatchCsv,
};

export const resources: Record<Language, Messages<Catalogue>> = { en: english, fr: french };

export * from './types';
