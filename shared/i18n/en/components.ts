/** Shared pieces: error notices, copy buttons. */
export default {
  copyLabel: 'Copy {{label}}',
  copyFailed: 'Not copied: the clipboard refused. Select the text and copy it by hand.',
  /** Followed by the service's or main's own message, in English. */
  details: 'Details:',
  /** A French reader's label for the same words, quoted as said (English). */
  originalWords: 'The service’s words:',
  code: 'Code {{code}}',
  /** The built-in profile's name (main calls it "Local sandbox"). */
  localSandbox: 'Local sandbox',
  resizeColumn: 'Resize the column {{column}} (← →; double-click resets every column)',
  errorSummary_one: '{{count}} field needs a fix before this can be sent:',
  errorSummary_many: '{{count}} fields need a fix before this can be sent:',
  errorSummary_other: '{{count}} fields need a fix before this can be sent:',
  errorSummaryItem: '{{label}}: {{problem}}',
} as const;
