/**
 * Under a TEAM_KEYS_MISSING failure (a Verify or a send with a team profile this desktop has no
 * keys for yet): a button to Settings on that profile, where its keys are added.
 */
import { useTranslation } from 'react-i18next';
import type { ApiFailure } from '../../../shared/api';
import { useUi } from '../stores';

export function TeamKeysAction({ failure }: { failure: ApiFailure }) {
  const { t } = useTranslation('settings');
  const goTo = useUi((s) => s.goTo);
  if (failure.code !== 'TEAM_KEYS_MISSING' || !failure.profileId) return null;
  const profile = failure.profileId;
  return (
    <p>
      <button type="button" className="secondary" onClick={() => goTo({ screen: 'settings', journalId: null, params: { profile } })}>
        {t('team.addKeysButton')}
      </button>
    </p>
  );
}
