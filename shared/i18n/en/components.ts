/** Shared pieces: error notices, copy buttons. */
export default {
  copyLabel: 'Copy {{label}}',
  details: 'Details: {{message}}',
  code: 'Code {{code}}',
} as const;
