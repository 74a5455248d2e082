/** Text main produces and the window shows: start notices (by code, with parameters) and action results. */
export default {
  notices: {
    OUTCOME_UNKNOWN_one: '{{formatted}} request was being sent when Paydesk last stopped; its outcome is unknown. Look it up by external id before sending again.',
    OUTCOME_UNKNOWN_other: '{{formatted}} requests were being sent when Paydesk last stopped; their outcome is unknown. Look them up by external id before sending again.',
    /** Never chosen in English; French uses it for round millions. */
    OUTCOME_UNKNOWN_many: '{{formatted}} requests were being sent when Paydesk last stopped; their outcome is unknown. Look them up by external id before sending again.',
    SANDBOX_UNAVAILABLE: 'The local sandbox did not start; the other profiles still work. The reason is in the log.',
    SETTINGS_CORRUPT: 'The settings file could not be read. Paydesk started with default settings (your secret keys are in the OS keychain and were not affected).',
    SETTINGS_CORRUPT_KEPT: 'The settings file could not be read; it was kept aside as {{backupPath}}. Paydesk started with default settings (your secret keys are in the OS keychain and were not affected).',
  },
  verify: {
    done: 'Verified with the provider.',
  },
  /** What "look it up first" found for an outcome-unknown entry (renderer/src/stores/transactions.ts). */
  resolve: {
    exists: 'The service has this transaction: it was sent once, nothing to resend.',
    missing: 'The service has no transaction with this external id: it never arrived, so it is safe to send again.',
  },
} as const;
