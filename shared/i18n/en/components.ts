/** Shared pieces: error notices, copy buttons. */
export default {
  copyLabel: 'Copy {{label}}',
  details: 'Details: {{message}}',
  code: 'Code {{code}}',
  /** The built-in profile's name (main calls it "Local sandbox"). */
  localSandbox: 'Local sandbox',
} as const;
