/**
 * Finds English words left in French UI text. Ids, codes, URLs, keys, phone numbers, e-mail
 * addresses and file names are removed first (they stay as they are in every language); what is
 * left is split into words and matched, whole word and case-insensitive, against common English
 * words of this console. Used by test/e2e/french.test.ts.
 */

/** Common English words of this UI. Words that are also French are NOT here (see FRENCH_HOMOGRAPHS). */
export const ENGLISH_WORDS: readonly string[] = [
  // grammar words that French never uses ("a", "on", "or", "an", "me", "de" are French words too)
  'the', 'and', 'of', 'to', 'for', 'with', 'from', 'in', 'at', 'by', 'is', 'are', 'was', 'were', 'be', 'been', 'not',
  'this', 'that', 'these', 'those', 'your', 'you', 'it', 'its', 'has', 'have', 'will', 'can', 'could', 'should', 'may',
  'no', 'yes', 'none', 'all', 'any', 'more', 'than', 'when', 'then', 'there', 'here', 'what', 'which', 'who', 'how',
  'only', 'each', 'every', 'other', 'after', 'before', 'until', 'again', 'now', 'yet', 'into', 'out', 'off', 'up',
  'new', 'next', 'back', 'some', 'something', 'went', 'wrong', 'please', 'without', 'per', 'above', 'below',
  // the console's own vocabulary
  'payment', 'payments', 'payout', 'payouts', 'amount', 'amounts', 'status', 'statuses', 'send', 'sent', 'sending',
  'search', 'history', 'settings', 'customer', 'customers', 'phone', 'fee', 'fees', 'balance', 'wallet', 'cancel',
  'close', 'verify', 'verified', 'verifying', 'lookup', 'look', 'profile', 'profiles', 'environment', 'failed',
  'completed', 'processing', 'cancelled', 'initiated', 'pending', 'rejected', 'unknown', 'outcome', 'outcomes',
  'key', 'keys', 'hidden', 'stored', 'save', 'saved', 'delete', 'replace', 'copy', 'copied', 'dismiss', 'retry',
  'try', 'loading', 'running', 'stopped', 'settle', 'settled', 'clock', 'deliveries', 'delivery', 'delivered',
  'redeliver', 'refresh', 'attempts', 'attempt', 'event', 'events', 'state', 'reason', 'top', 'ledger', 'engine',
  'request', 'requests', 'confirm', 'confirmation', 'review', 'export', 'exporting', 'exported', 'rows', 'row',
  'results', 'filter', 'filters', 'clear', 'show', 'hide', 'language', 'time', 'times', 'timeline', 'details',
  'real', 'money', 'add', 'remove', 'metadata', 'optional', 'required', 'first', 'last', 'name', 'number', 'method',
  'methods', 'external', 'screens', 'notices', 'error', 'errors', 'warning', 'sandbox', 'live', 'test', 'edit',
  'switch', 'secret', 'header', 'word', 'found', 'found', 'nothing', 'again', 'check', 'enter', 'entered', 'shown',
  'never', 'once', 'week', 'today', 'yesterday', 'days', 'hours', 'seconds', 'receive', 'received',
  'recipient', 'payer', 'sender', 'provider', 'operator', 'print', 'receipt', 'activity', 'overview', 'batch',
  'reconcile', 'reconciliation', 'inspector', 'upload', 'file', 'files', 'column', 'columns', 'rate', 'total',
  'resume', 'interrupted', 'progress', 'done', 'succeeded', 'chart', 'daily', 'open', 'opened', 'use', 'type',
];

/**
 * French words spelled exactly like English ones, so never flagged (listed on purpose, each one a
 * word the French UI uses): "transaction(s)" (une transaction), "type" (le type de clé), "total",
 * "test" (clés de test), "secret" (le secret de paiement), "payer" (the verb: « payer »), and
 * a few that are not in the English list today but would be if someone added them: description,
 * actions, code, date, message, service, maintenance, minutes, application, note, options, page.
 */
export const FRENCH_HOMOGRAPHS: ReadonlySet<string> = new Set([
  'transaction', 'transactions', 'type', 'total', 'test', 'secret', 'payer',
  'description', 'actions', 'code', 'date', 'message', 'service', 'maintenance', 'minutes', 'application', 'note', 'options', 'page',
]);

const WORDS = new Set(ENGLISH_WORDS.map((word) => word.toLowerCase()).filter((word) => !FRENCH_HOMOGRAPHS.has(word)));

/** What is the same in every language: removed before words are matched. */
const NOT_WORDS: readonly RegExp[] = [
  /\bmobile money\b/gi, // the French of Cameroon says « mobile money » (le compte mobile money du client)
  /\bhttps?:\/\/\S+/g, // URLs
  /\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b/g, // e-mail addresses
  /\b(TE|pk|sk|whsec|ORDER|PAYOUT)_[\w+/=-]*/g, // transaction ids, keys, webhook secrets
  /\b[A-Z][A-Z0-9]*(_[A-Z0-9]+)+\b/g, // UPPER_SNAKE codes: PAYER_NOT_FOUND, MAINTENANCE_MODE
  /\b[a-z][a-z0-9]*(_[a-z0-9]+)+\b/g, // lower_snake ids: service_demo, momo_cm, external_id
  /\b[a-z]+(\.[a-z_]+)+\b/g, // dotted event types: payment.completed
  /\+\d{6,15}\b/g, // phone numbers: +237650000001
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, // UUIDs (external ids)
  /\b[\w-]+\.(csv|json|db)\b/g, // file names
  /\bX-[A-Za-z0-9]+-[A-Za-z-]+\b/g, // header names: X-SVC-Timestamp
  /(?<![\w/])\/v\d+\/[\w/.%~-]*/g, // API paths: /v1/payments, /v1/balance (the request inspector lists them)
  // Any token of letters, digits and hyphens with a digit in it is an id, never a word: a batch
  // row's generated external id "B-mwx8pbdw7be872-2" read "be" as English (a chance failure).
  /(?<![\p{L}\d-])[\p{L}\d-]*\d[\p{L}\d-]*(?![\p{L}\d-])/gu,
];

export interface EnglishHit {
  word: string;
  /** The line the word was found in, for the report. */
  line: string;
}

export function findEnglish(text: string): EnglishHit[] {
  const hits: EnglishHit[] = [];
  for (const rawLine of text.split(/\n+/)) {
    let line = rawLine;
    for (const pattern of NOT_WORDS) line = line.replace(pattern, ' ');
    for (const match of line.matchAll(/[\p{L}’']+/gu)) {
      const word = match[0].replace(/[’']s$/, '').toLowerCase();
      if (WORDS.has(word)) hits.push({ word, line: rawLine.trim().slice(0, 160) });
    }
  }
  return hits;
}
