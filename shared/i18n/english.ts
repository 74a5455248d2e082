/**
 * The English catalogue, one namespace per area (the keys every other language follows). Its own
 * module so that the renderer's first chunk holds English only: French is loaded when it is the
 * language in use (renderer/src/i18n, issue 28).
 */
import enBatch from './en/batch';
import enBatchCsv from './en/batchCsv';
import enCommon from './en/common';
import enErrors from './en/errors';
import enFailed from './en/failed';
import enInspector from './en/inspector';
import enComponents from './en/components';
import enConsole from './en/console';
import enExports from './en/exports';
import enFields from './en/fields';
import enKeys from './en/keys';
import enPayment from './en/payment';
import enSandbox from './en/sandbox';
import enStatus from './en/status';
import enTransaction from './en/transaction';
import enHistory from './en/history';
import enLookup from './en/lookup';
import enSettings from './en/settings';
import enPayout from './en/payout';
import enForm from './en/form';
import enReconcile from './en/reconcile';
import enOverview from './en/overview';
import enApprovals from './en/approvals';
import enAudit from './en/audit';
import enPeople from './en/people';
import enWorkspace from './en/workspace';

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
  approvals: enApprovals,
  audit: enAudit,
  people: enPeople,
  workspace: enWorkspace,
} as const;

export type Catalogue = typeof english;
export type Namespace = keyof Catalogue;
