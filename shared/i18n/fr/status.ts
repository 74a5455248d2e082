import type { Messages } from '../types';
import type en from '../en/status';

export default {
  transaction: {
    initiated: 'Initiée',
    processing: 'En cours',
    completed: 'Réussie',
    failed: 'Échouée',
    cancelled: 'Annulée',
  },
  unlisted: '« {{status}} », statut que la spécification ne liste pas',
  journal: {
    pending: 'Envoi…',
    outcome_unknown: 'Issue inconnue',
    rejected: 'Refusée',
    not_sent: 'Non envoyée',
    known: 'Statut inconnu',
  },
  delivery: {
    pending: 'en attente',
    delivered: 'livrée',
    failed: 'échouée',
    stopped: 'arrêtée',
  },
  label: 'Statut\u00a0: {{status}}',
} as const satisfies Messages<typeof en>;
