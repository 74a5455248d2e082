/**
 * The console's catalogues, English and French, one namespace per area. Add a namespace as a pair
 * of files `en/<ns>.ts` and `fr/<ns>.ts` (the French one typed `Messages<typeof en>`) and list it
 * in both maps below. Data only: the renderer reads them through i18next, main (CSV headers of
 * exports) reads them directly.
 */
import enCommon from './en/common';
import enErrors from './en/errors';
import enFailed from './en/failed';
import enReconcile from './en/reconcile';
import frCommon from './fr/common';
import frErrors from './fr/errors';
import frFailed from './fr/failed';
import frReconcile from './fr/reconcile';
import type { Language, Messages } from './types';

export const english = {
  common: enCommon,
  errors: enErrors,
  failed: enFailed,
  reconcile: enReconcile,
} as const;

export type Catalogue = typeof english;
export type Namespace = keyof Catalogue;

const french: Messages<Catalogue> = {
  common: frCommon,
  errors: frErrors,
  failed: frFailed,
  reconcile: frReconcile,
};

export const resources: Record<Language, Messages<Catalogue>> = { en: english, fr: french };

export * from './types';
