/**
 * A profile's connection fields (name, base URL, environment, the signature header's word), the same
 * in the desktop's profile form (SettingsScreen.tsx) and an admin's team profile form
 * (TeamProfiles.tsx): a team profile is a connection definition without the keys.
 */
import { useTranslation } from 'react-i18next';
import { DEFAULT_HEADER_WORD, type FieldErrors } from '../../../shared/contract';
import { Field, describedBy } from '../components/common';

export interface ConnectionValues {
  name: string;
  baseUrl: string;
  environment: string;
  headerWord: string;
}

type Change = (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => void;

export function ConnectionFields({ prefix, values, errors, set }: { prefix: string; values: ConnectionValues; errors: FieldErrors; set: (key: keyof ConnectionValues) => Change }) {
  const { t } = useTranslation('settings');
  const input = (key: 'name' | 'baseUrl' | 'headerWord', label: string, hint?: string) => (
    <Field id={`${prefix}-${key}`} label={label} errors={errors[key]} hint={hint}>
      <input id={`${prefix}-${key}`} value={values[key]} onChange={set(key)} autoComplete="off" {...describedBy(`${prefix}-${key}`, errors[key], Boolean(hint))} />
    </Field>
  );
  return (
    <>
      {input('name', t('name'))}
      {input('baseUrl', t('baseUrl'), t('baseUrlHint'))}
      <div className="grid-2">
        <Field id={`${prefix}-environment`} label={t('environment')} errors={errors.environment}>
          <select id={`${prefix}-environment`} value={values.environment} onChange={set('environment')}>
            <option value="sandbox">{t('envSandbox')}</option>
            <option value="live">{t('envLive')}</option>
          </select>
        </Field>
        {input('headerWord', t('headerWord'), t('headerWordHint', { word: values.headerWord || DEFAULT_HEADER_WORD }))}
      </div>
    </>
  );
}
