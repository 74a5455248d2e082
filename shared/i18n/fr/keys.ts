import type { Messages } from '../types';
import type en from '../en/keys';

export default {
  title: 'Clés',
  publicKey: 'Clé publique',
  secretKey: 'Clé secrète',
  publicMissing: 'Non renseignée\u00a0: ajoutez-la dans le profil ci-dessus.',
  builtIn: 'Fournie par le moteur du bac à sable local (voir l’écran Bac à sable)',
  stored: 'Enregistrée dans le trousseau',
  notStored: 'Non enregistrée',
  hint: 'Saisie une seule fois\u00a0; conservée dans le trousseau du système d’exploitation et plus jamais affichée.',
  cancel: 'Annuler',
  withSender: 'Les clés de ce profil d’équipe sont chez l’expéditeur de l’équipe\u00a0: il signe et envoie pour lui, et aucun poste ne détient, ne demande ni n’affiche ses clés secrètes.',
  payment: {
    heading: 'Clé de paiement',
    copy: 'la clé publique de paiement',
    form: 'Enregistrer le secret de paiement',
    field: 'Clé secrète de paiement',
    save: 'Enregistrer le secret de paiement',
    replace: 'Remplacer le secret de paiement',
    delete: 'Supprimer le secret de paiement',
  },
  payout: {
    heading: 'Clé de transfert',
    copy: 'la clé publique de transfert',
    form: 'Enregistrer le secret de transfert',
    field: 'Clé secrète de transfert',
    save: 'Enregistrer le secret de transfert',
    replace: 'Remplacer le secret de transfert',
    delete: 'Supprimer le secret de transfert',
  },
} as const satisfies Messages<typeof en>;
