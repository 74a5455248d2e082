/** The French catalogue, typed by the English one (every key, no other). */
import frBatch from './fr/batch';
import frBatchCsv from './fr/batchCsv';
import frCommon from './fr/common';
import frErrors from './fr/errors';
import frFailed from './fr/failed';
import frInspector from './fr/inspector';
import frComponents from './fr/components';
import frConsole from './fr/console';
import frExports from './fr/exports';
import frFields from './fr/fields';
import frKeys from './fr/keys';
import frPayment from './fr/payment';
import frSandbox from './fr/sandbox';
import frStatus from './fr/status';
import frTransaction from './fr/transaction';
import frHistory from './fr/history';
import frLookup from './fr/lookup';
import frSettings from './fr/settings';
import frPayout from './fr/payout';
import frForm from './fr/form';
import frReconcile from './fr/reconcile';
import frOverview from './fr/overview';
import frApprovals from './fr/approvals';
import frAudit from './fr/audit';
import frPeople from './fr/people';
import type { Catalogue } from './english';
import type { Messages } from './types';
import frWorkspace from './fr/workspace';

export const french: Messages<Catalogue> = {
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
  approvals: frApprovals,
  audit: frAudit,
  people: frPeople,
  workspace: frWorkspace,
};

