/** Lookup: one search box, by transaction id or external id. */
export default {
  title: 'Look up a transaction',
  intro: 'Find a payment or payout by the service’s transaction id or by your own external id.',
  form: 'Look up',
  kind: 'Kind',
  payment: 'Payment',
  payout: 'Payout',
  by: 'Search by',
  transactionId: 'Transaction id',
  externalId: 'External id',
  transactionIdPlaceholder: 'TE_…',
  externalIdPlaceholder: 'your reference',
  button: 'Look up',
  /** The active profile's keys are with the team sender: main reads only the team's journal for it. */
  bySender: 'The keys of this profile are with the team sender, which follows its transactions up: Look up finds what is in the team’s journal and does not ask the service.',
  busy: 'Looking up',
  empty: 'Enter an id to look up.',
  notFound: {
    payment_transaction_id: 'Payment with transaction id “{{id}}” not found in {{environment}} for {{profile}}.',
    payment_external_id: 'Payment with external id “{{id}}” not found in {{environment}} for {{profile}}.',
    payout_transaction_id: 'Payout with transaction id “{{id}}” not found in {{environment}} for {{profile}}.',
    payout_external_id: 'Payout with external id “{{id}}” not found in {{environment}} for {{profile}}.',
  },
  approval: {
    awaiting: 'Awaiting approval (request {{id}}): it has not been sent, so the service does not know it yet.',
    ready: 'Approved, ready to send (request {{id}}): it has not been sent yet.',
    rejected: 'Its approval request {{id}} was rejected: it was never sent.',
    withdrawn: 'Its approval request {{id}} was withdrawn: it was never sent.',
    void: 'Its approval request {{id}} was voided (changed after it was asked): it was never sent.',
    open: 'Open request {{id}}',
  },
  isOther: {
    payment: 'It exists as a payment.',
    payout: 'It exists as a payout.',
  },
  switchTo: {
    payment: 'Look it up as a payment',
    payout: 'Look it up as a payout',
  },
} as const;
