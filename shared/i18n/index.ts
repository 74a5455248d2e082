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
import enInspector from './en/inspector';
import frCommon from './fr/common';
import frErrors from './fr/errors';
import frFailed from './fr/failed';
import frInspector from './fr/inspector';
import enComponents from './en/components';
import enConsole from './en/console';
import enExports from './en/exports';
import enFields from './en/fields';
import enKeys from './en/keys';
import enPayment from './en/payment';
import enSandbox from './en/sandbox';
import enStatus from './en/status';
import frComponents from './fr/components';
import frConsole from './fr/console';
import frExports from './fr/exports';
import frFields from './fr/fields';
import frKeys from './fr/keys';
import frPayment from './fr/payment';
import frSandbox from './fr/sandbox';
import frStatus from './fr/status';
import enTransaction from './en/transaction';
import enHistory from './en/history';
import enLookup from './en/lookup';
import enSettings from './en/settings';
import enPayout from './en/payout';
import enForm from './en/form';
import frTransaction from './fr/transaction';
import frHistory from './fr/history';
import frLookup from './fr/lookup';
import frSettings from './fr/settings';
import frPayout from './fr/payout';
import frForm from './fr/form';
import enReconcile from './en/reconcile';
import frReconcile from './fr/reconcile';
import enOverview from './en/overview';
import frOverview from './fr/overview';
import enWorkspace from './en/workspace';
import frWorkspace from './fr/workspace';
import type { Language, Messages } from './types';

export const english = {
  common: enCommon,
  errors: enErrors,
  failed: enFailed,
  components: enComponents,
  console: enConsole,
  exports: enExports,
  fields: enFields,
  keys: enKeys,
  payment: enPayment,
  sandbox: enSandbox,
  status: enStatus,
  batch: enBatch,
  batchCsv: enBatchCsv,
  transaction: enTransaction,
  history: enHistory,
  lookup: enLookup,
  settings: enSettings,
  payout: enPayout,
  form: enForm,
  inspector: enInspector,
  reconcile: enReconcile,
  overview: enOverview,
  workspace: enWorkspace,
} as const;

export type Catalogue = typeof english;
export type Namespace = keyof Catalogue;

const french: Messages<Catalogue> = {
  common: frCommon,
  errors: frErrors,
  failed: frFailed,
  inspector: frInspector,
  components: frComponents,
  console: frConsole,
  exports: frExports,
  fields: frFields,
  keys: frKeys,
  payment: frPayment,
  sandbox: frSandbox,
  status: frStatus,
  batch: frBatch,
  batchCsv: frBatchCsv,
  transaction: frTransaction,
  history: frHistory,
  lookup: frLookup,
  settings: frSettings,
  payout: frPayout,
  form: frForm,
  reconcile: frReconcile,
  overview: frOverview,
  workspace: frWorkspace,
};

export const resources: Record<Language, Messages<Catalogue>> = { en: english, fr: french };

export * from './types';
