/** Typed keys: `t('nav.payment')` and `t('errors:NOT_SENT.title')` are checked against the English catalogue. */
import 'i18next';
import type { Catalogue } from '../../../shared/i18n';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: Catalogue;
    returnNull: false;
  }
}
