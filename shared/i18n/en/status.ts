/** Status words every screen shows: transaction statuses, the journal's own states, webhook delivery states. */
export default {
  transaction: {
    initiated: 'Initiated',
    processing: 'Processing',
    completed: 'Completed',
    failed: 'Failed',
    cancelled: 'Cancelled',
  },
  /** A status the service said that the spec's table does not list (`pending`): shown as itself, followed up until final. */
  unlisted: '“{{status}}”, not a status the spec lists',
  journal: {
    pending: 'Sending…',
    outcome_unknown: 'Outcome unknown',
    rejected: 'Rejected',
    not_sent: 'Not sent',
    known: 'Unknown status',
  },
  delivery: {
    pending: 'pending',
    delivered: 'delivered',
    failed: 'failed',
    stopped: 'stopped',
  },
  /** The badge's accessible name. */
  label: 'Status: {{status}}',
} as const;
