/**
 * Start notices from main (app:info `notices`) in the console's language: each known code has its
 * sentence in the catalogue `console:notices`, filled with the notice's parameters. English readers
 * see main's own sentence (it also carries the technical reason, e.g. why the settings file was
 * unreadable); a code the renderer does not know keeps main's English sentence.
 */
import type { StartNotice } from '../../../shared/api';
import { formatCount } from '../format/money';
import { currentLanguage, t } from '../i18n';

export function describeNotice(notice: StartNotice): string {
  if (currentLanguage() === 'en') return notice.message;
  const params = notice.params ?? {};
  switch (notice.code) {
    case 'OUTCOME_UNKNOWN': {
      const count = typeof params.count === 'number' ? params.count : null;
      return count === null ? notice.message : t('console:notices.OUTCOME_UNKNOWN', { count, formatted: formatCount(count) });
    }
    case 'SANDBOX_UNAVAILABLE':
      return t('console:notices.SANDBOX_UNAVAILABLE');
    case 'SETTINGS_CORRUPT':
      return typeof params.backupPath === 'string'
        ? t('console:notices.SETTINGS_CORRUPT_KEPT', { backupPath: params.backupPath })
        : t('console:notices.SETTINGS_CORRUPT');
    default:
      return notice.message;
  }
}
