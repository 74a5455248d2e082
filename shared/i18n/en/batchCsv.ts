/**
 * Bulk payouts: the words of the CSV files main writes (template, invalid rows, batch report).
 * Headers are read back on import in either language (see shared/batch/columns.ts).
 */
export default {
  columns: {
    phone_number: 'phone_number',
    amount: 'amount',
    first_name: 'first_name',
    last_name: 'last_name',
    email: 'email',
    description: 'description',
    external_id: 'external_id',
    payment_method: 'payment_method',
    row_number: 'row',
    errors: 'errors',
    state: 'state',
    transaction_id: 'transaction_id',
    status: 'status',
    failed_code: 'failed_code',
    fee: 'fee',
    currency: 'currency',
    error: 'error',
    journal_id: 'journal_id',
  },
  /** The template's example rows. */
  template: {
    description1: 'October commission',
    description2: 'Salary advance',
    description3: 'Refund order 1042',
    region: 'Littoral',
  },
  filenames: {
    template: 'paydesk-batch-template',
    invalid: 'paydesk-batch-invalid-rows',
    report: 'paydesk-batch-report',
  },
  rowStates: {
    not_sent: 'not sent',
    pending: 'sending',
    accepted: 'accepted',
    rejected: 'rejected',
    unknown: 'outcome unknown',
  },
  alreadySent: 'already sent earlier',
  adoptedDiffers: 'NOT what this row asks: sent earlier to {{to}}, {{amount}} {{currency}}',
  retryOf: 'retry of {{id}}',
  movedTo: 'moved to batch “{{name}}” ({{batchId}}): sent and reported there',
} as const;
