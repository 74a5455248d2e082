import type { Messages } from '../types';
import type en from '../en/components';

export default {
  copyLabel: 'Copier {{label}}',
  copyFailed: 'Non copié\u00a0: le presse-papiers a refusé. Sélectionnez le texte et copiez-le à la main.',
  details: 'Détails\u00a0:',
  originalWords: 'Message d’origine (en anglais)\u00a0:',
  code: 'Code {{code}}',
  localSandbox: 'Bac à sable local',
  resizeColumn: 'Redimensionner la colonne {{column}} (← → ; un double-clic rétablit toutes les colonnes)',
  errorSummary_one: '{{count}} champ est à corriger avant l’envoi\u00a0:',
  errorSummary_many: '{{count}} champs sont à corriger avant l’envoi\u00a0:',
  errorSummary_other: '{{count}} champs sont à corriger avant l’envoi\u00a0:',
  errorSummaryItem: '{{label}}\u00a0: {{problem}}',
} as const satisfies Messages<typeof en>;
