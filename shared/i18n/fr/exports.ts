import type { Messages } from '../types';
import type en from '../en/exports';

export default {
  columns: {
    created_at: 'Créée le',
    profile: 'Profil',
    environment: 'Environnement',
    kind: 'Type',
    state: 'État',
    status: 'Statut',
    failed_code: 'Code d’échec',
    transaction_id: 'ID transaction',
    external_id: 'ID externe',
    amount: 'Montant',
    fee: 'Frais',
    net_amount: 'Montant net',
    currency: 'Devise',
    phone_number: 'Téléphone',
    payment_method: 'Moyen de paiement',
    customer_first_name: 'Prénom du client',
    customer_last_name: 'Nom du client',
    customer_email: 'E-mail du client',
    description: 'Description',
    last_error: 'Dernière erreur',
    updated_at: 'Mise à jour le',
  },
} as const satisfies Messages<typeof en>;
