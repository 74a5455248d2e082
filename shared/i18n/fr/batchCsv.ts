import type { Messages } from '../types';
import type en from '../en/batchCsv';

export default {
  columns: {
    phone_number: 'telephone',
    amount: 'montant',
    first_name: 'prenom',
    last_name: 'nom',
    email: 'email',
    description: 'description',
    external_id: 'reference_externe',
    payment_method: 'moyen_de_paiement',
    row_number: 'ligne',
    errors: 'erreurs',
    state: 'etat',
    transaction_id: 'id_transaction',
    status: 'statut',
    failed_code: 'code_echec',
    fee: 'frais',
    currency: 'devise',
    error: 'erreur',
    journal_id: 'id_journal',
  },
  template: {
    description1: 'Commission d’octobre',
    description2: 'Avance sur salaire',
    description3: 'Remboursement commande 1042',
    region: 'Littoral',
  },
  filenames: {
    template: 'paydesk-lot-modele',
    invalid: 'paydesk-lot-lignes-invalides',
    report: 'paydesk-lot-rapport',
  },
  rowStates: {
    not_sent: 'non envoyé',
    pending: 'envoi en cours',
    accepted: 'accepté',
    rejected: 'refusé',
    unknown: 'résultat inconnu',
  },
  alreadySent: 'déjà envoyé auparavant',
  adoptedDiffers: 'PAS ce que demande cette ligne : envoyé auparavant à {{to}}, {{amount}} {{currency}}',
  retryOf: 'relance de {{id}}',
  movedTo: 'déplacée vers le lot « {{name}} » ({{batchId}}) : envoyée et rapportée là-bas',
} as const satisfies Messages<typeof en>;
