/** Status words every screen shows: transaction statuses, the journal's own states, webhook delivery states. */
export default {
  transaction: {
    initiated: 'Initiated',
    processing: 'Processing',
    completed: 'Completed',
    failed: 'Failed',
    cancelled: 'Cancelled',
  },
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
