import type { Messages } from '../types';
import type en from '../en/form';

export default {
  methodsFailed: 'Les moyens de paiement n’ont pas pu être chargés.',
  method: 'Moyen de paiement',
  noMethods: 'Aucun moyen disponible',
  amount: 'Montant ({{currency}})',
  amountHint: 'En {{currency}}',
  phone: 'Numéro de téléphone',
  phoneHint: 'Format international, par ex. +237650000001 (les espaces entre les chiffres sont acceptés)',
  party: {
    payment: 'Client',
    payout: 'Bénéficiaire',
    paymentHint: 'Paie depuis ce numéro mobile money, après avoir accepté la demande sur son téléphone.',
    payoutHint: 'Reçoit l’argent sur ce numéro mobile money.',
  },
  firstName: 'Prénom',
  lastName: 'Nom',
  email: 'E-mail',
  description: 'Description (facultative)',
  externalId: 'Référence externe',
  externalIdHint: 'Votre propre référence ; une nouvelle est proposée pour chaque transaction.',
  newExternalId: 'Nouvelle référence externe',
  metadata: 'Métadonnées (facultatives)',
  metadataKey: 'Clé de métadonnée {{n}}',
  metadataValue: 'Valeur de métadonnée {{n}}',
  keyPlaceholder: 'clé',
  valuePlaceholder: 'valeur',
  removeRow: 'Retirer la ligne de métadonnées {{n}}',
  remove: 'Retirer',
  addRow: 'Ajouter une ligne de métadonnées',
  keyMissing: 'chaque valeur doit avoir une clé',
  keyTwice: 'la clé « {{key}} » est utilisée deux fois',
  liveRefused: {
    title: 'Cet hôte navigateur refuse les profils de production : rien ne peut être envoyé avec « {{name}} » ici.',
    next: 'Relancez l’hôte navigateur avec --allow-live, ou utilisez l’application de bureau, pour envoyer de l’argent réel.',
  },
} as const satisfies Messages<typeof en>;
