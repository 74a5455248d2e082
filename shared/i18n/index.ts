/**
 * The console's catalogues, English and French, one namespace per area. Add a namespace as a pair
 * of files `en/<ns>.ts` and `fr/<ns>.ts` (the French one typed `Messages<typeof en>`) and list it
 * in both maps below. Data only: the renderer reads them through i18next, main (CSV headers of
 * exports) reads them directly.
 */
import enCommon from './en/common';
import enErrors from './en/errors';
import enFailed from './en/failed';
import enOverview from './en/overview';
import frCommon from './fr/common';
import frErrors from './fr/errors';
import frFailed from './fr/failed';
import frOverview from './fr/overview';
import type { Language, Messages } from './types';

export const english = {
  common: enCommon,
  errors: enErrors,
  failed: enFailed,
  overview: enOverview,
} as const;

export type Catalogue = typeof english;
export type Namespace = keyof Catalogue;

const french: Messages<Catalogue> = {
  common: frCommon,
  errors: frErrors,
  failed: frFailed,
  overview: frOverview,
};

export const resources: Record<Language, Messages<Catalogue>> = { en: english, fr: french };

export * from './types';
