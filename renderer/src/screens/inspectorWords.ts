/** A recorded request's diagnosis in plain words (the inspector namespace's sentences). */
import type { TFunction } from 'i18next';
import type { AuthDiagnosis, InspectedRequest } from '../../../shared/contract';
import { formatLocale } from '../i18n';

type T = TFunction<'inspector'>;

export function diagnosisSentence(t: T, diagnosis: AuthDiagnosis, record: Pick<InspectedRequest, 'publicKey'>): string {
  switch (diagnosis.check) {
    case 'headers':
      return t('diagnosis.headers', { headers: diagnosis.missing.join(', ') });
    case 'timestamp':
      return t('diagnosis.timestamp', { received: diagnosis.received });
    case 'environment':
      return t('diagnosis.environment', { received: diagnosis.received });
    case 'timestamp-window':
      return diagnosis.skewSeconds < 0
        ? t('diagnosis.timestampBehind', { seconds: -diagnosis.skewSeconds, tolerance: diagnosis.toleranceSeconds })
        : t('diagnosis.timestampAhead', { seconds: diagnosis.skewSeconds, tolerance: diagnosis.toleranceSeconds });
    case 'api-key':
      switch (diagnosis.reason) {
        case 'unknown': {
          // A key pasted with an auth scheme before it ("Bearer pk_…") is named as such, not as an unknown key.
          const scheme = /^(bearer|basic|token|apikey)\s+/i.exec(record.publicKey ?? '');
          if (scheme) return t('diagnosis.keyBearer', { prefix: scheme[0].trimEnd(), key: (record.publicKey ?? '').slice(scheme[0].length).trim() });
          return t('diagnosis.keyUnknown', { key: record.publicKey ?? '' });
        }
        case 'inactive':
          return t('diagnosis.keyInactive');
        case 'wrong-type':
          return t('diagnosis.keyWrongType', {
            keyType: t(`diagnosis.keyTypeName.${diagnosis.keyType ?? 'payment'}`),
            required: t(`diagnosis.keyTypeName.${diagnosis.requiredKeyType}`),
          });
        case 'secret-sent':
          return t('diagnosis.keySecretSent');
        default: {
          const unknown: never = diagnosis.reason;
          return String(unknown);
        }
      }
    case 'key-environment':
      return t('diagnosis.keyEnvironment', { keyEnvironment: diagnosis.keyEnvironment, headerEnvironment: diagnosis.headerEnvironment });
    case 'signature':
      return t(`diagnosis.cause.${diagnosis.likelyCause}`, {
        variant: diagnosis.bodyVariant ? t(`diagnosis.variant.${diagnosis.bodyVariant}`) : '',
        otherKey: diagnosis.otherPublicKey ?? '',
        key: record.publicKey ?? '',
      });
    case 'ip-whitelist':
      return t('diagnosis.ipWhitelist', { whitelist: diagnosis.whitelist.join(', '), address: diagnosis.address });
    case 'application':
      return diagnosis.applicationStatus === 'pending' ? t('diagnosis.applicationPending') : t('diagnosis.applicationInactive');
    case 'live-mode':
      return t('diagnosis.liveMode');
    default: {
      const unknown: never = diagnosis;
      return JSON.stringify(unknown);
    }
  }
}

/** A duration in milliseconds in the language's number style (54.3 / 54,3). */
export function formatMs(ms: number): string {
  return new Intl.NumberFormat(formatLocale(), { maximumFractionDigits: 1 }).format(ms);
}
