/**
 * The batch file's own problems (shared/batch/parse.ts, columns.ts) in the console's language.
 * Main writes them in English (the channel's `fields.text`, kept for logs and tests); as for field
 * errors (messages/fields.ts), this is the one table mapping each English sentence to a catalogue
 * key (`batch:fileErrors.*`) with its captures as parameters. English is shown as it came.
 */
import type enBatch from '../../../shared/i18n/en/batch';
import { acceptedHeadersIn } from '../../../shared/batch/columns';
import { currentLanguage, t } from '../i18n';
import { matchMessage, type MessagePatterns } from './fields';

type FileErrorKey = keyof (typeof enBatch)['fileErrors'];

const PATTERNS: MessagePatterns<FileErrorKey> = [
  [/^row (\d+): .* \(a quote is opened and never closed\)$/s, 'quote', ['row']],
  [/^the file is empty: it needs a header line, then one line per payout$/, 'empty', []],
  [/^column (\d+) "(.*)" is not a known column \(accepted: (.*), or meta\.KEY for metadata\)$/s, 'unknownColumn', ['position', 'header', 'accepted']],
  [/^column (\d+) "(.*)" repeats (\S+)$/s, 'repeats', ['position', 'header', 'column']],
  [/^the column (\S+) is missing$/, 'missing', ['column']],
  [/^the file has a header but no rows$/, 'noRows', []],
  [/^the file has (\d+) rows; a batch takes at most (\d+)$/, 'tooMany', ['rows', 'max']],
];

export function fileErrorKey(message: string): { key: FileErrorKey; params: Record<string, string> } | null {
  return matchMessage(PATTERNS, message);
}

/** One problem of the file in the console's language; one nobody listed keeps its English words. */
export function translateFileError(message: string): string {
  if (currentLanguage() === 'en') return message;
  const known = fileErrorKey(message);
  if (!known) return message;
  const translate = t as unknown as (key: `batch:fileErrors.${FileErrorKey}`, params: Record<string, string>) => string;
  // main lists the English spellings too; a French reader gets the columns with their French headers.
  const params = known.key === 'unknownColumn' ? { ...known.params, accepted: acceptedHeadersIn('fr') } : known.params;
  return translate(`batch:fileErrors.${known.key}`, params);
}
