/** Settings → Theme: System (default), Light or Dark, remembered by main. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { THEME_PREFERENCES, type ApiFailure, type ThemePreference } from '../../../shared/api';
import { ErrorNotice } from '../components/common';
import { useProfiles } from '../stores';
import { resolveTheme } from '../theme';

export function ThemeSetting() {
  const { t } = useTranslation();
  const preference = useProfiles((s) => s.info?.theme ?? 'system');
  const setTheme = useProfiles((s) => s.setTheme);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const label = (choice: ThemePreference) => (choice === 'system' ? t('theme.system', { theme: t(`theme.${resolveTheme('system')}`) }) : t(`theme.${choice}`));
  return (
    <div className="card theme-setting">
      <label htmlFor="theme-choice">{t('theme.label')}</label>{' '}
      <select
        id="theme-choice"
        value={preference}
        onChange={(e) => {
          setFailure(null);
          void setTheme(e.target.value as ThemePreference).then((result) => !result.ok && setFailure(result.error));
        }}
      >
        {THEME_PREFERENCES.map((choice) => (
          <option key={choice} value={choice}>
            {label(choice)}
          </option>
        ))}
      </select>
      {failure ? <ErrorNotice failure={failure} /> : null}
    </div>
  );
}
