/**
 * The console's catalogues, English and French, one namespace per area. Add a namespace as a pair
 * of files `en/<ns>.ts` and `fr/<ns>.ts` (the French one typed `Messages<typeof en>`) and list it
 * in both maps (english.ts, french.ts). Data only: the renderer reads them through i18next, main (CSV headers of
 * exports) reads them directly.
 */
import { english } from './english';
import { french } from './french';
import type { Language, Messages } from './types';
import type { Catalogue } from './english';

export { english, french };
export type { Catalogue, Namespace } from './english';

export const resources: Record<Language, Messages<Catalogue>> = { en: english, fr: french };

export * from './types';
