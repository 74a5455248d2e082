/** Settings → Language: System (default), English or Français, remembered by main. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGE_PREFERENCES, type LanguagePreference } from '../../../shared/i18n/types';
import type { ApiFailure } from '../../../shared/api';
import { ErrorNotice } from '../components/common';
import { systemLanguage } from '../i18n';
import { useProfiles } from '../stores';

export function LanguageSetting() {
  const { t } = useTranslation();
  const preference = useProfiles((s) => s.info?.language ?? 'system');
  const setLanguage = useProfiles((s) => s.setLanguage);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const label = (choice: LanguagePreference) =>
    choice === 'system' ? t('language.system', { language: t(`language.${systemLanguage()}`) }) : t(`language.${choice}`);
  return (
    <div className="card language-setting">
      <label htmlFor="language-choice">{t('language.label')}</label>{' '}
      <select
        id="language-choice"
        value={preference}
        onChange={(e) => {
          setFailure(null);
          void setLanguage(e.target.value as LanguagePreference).then((result) => !result.ok && setFailure(result.error));
        }}
      >
        {LANGUAGE_PREFERENCES.map((choice) => (
          <option key={choice} value={choice} lang={choice === 'system' ? undefined : choice}>
            {label(choice)}
          </option>
        ))}
      </select>
      {failure ? <ErrorNotice failure={failure} /> : null}
    </div>
  );
}
