import type { Messages } from '../types';
import type en from '../en/common';

export default {
  brand: 'Paydesk',
  nav: {
    label: 'Écrans',
    overview: 'Aperçu',
    payment: 'Nouveau paiement',
    payout: 'Nouveau transfert',
    lookup: 'Recherche',
    timeline: 'Transaction',
    history: 'Historique',
    batches: 'Transferts groupés',
    reconcile: 'Rapprochement',
    sandbox: 'Bac à sable',
    settings: 'Paramètres',
    approvals: 'Approbations',
    audit: 'Audit',
    people: 'Personnes',
  },
  marker: {
    live: 'PRODUCTION · argent réel',
    sandbox: 'BAC À SABLE · argent fictif',
    liveLabel: 'Environnement : production, argent réel',
    sandboxLabel: 'Environnement : bac à sable, argent fictif',
    profile: 'Profil',
    activeProfile: 'Profil actif',
    option: '{{name}} ({{environment}})',
  },
  environment: { sandbox: 'bac à sable', live: 'production' },
  notices: { region: 'Avis', dismiss: 'Masquer', dismissLabel: 'Masquer : {{message}}' },
  loading: { starting: 'Démarrage de Paydesk', screen: 'Ouverture de l’écran', profilesFailed: 'La console n’a pas pu charger ses profils.' },
  actions: { cancel: 'Annuler', close: 'Fermer', save: 'Enregistrer', retry: 'Réessayer', copy: 'Copier', copied: 'Copié' },
  unknownFailure: { title: 'Un problème est survenu.', next: 'Réessayez ; si cela persiste, signalez le code ci-dessous.' },
  nothingMarked: 'Vérifiez ce que vous avez saisi d’après le message ci-dessus, puis réessayez.',
  failedWithCode: 'Échec avec le code {{code}}.',
  serviceMessage: {
    duplicateExternalId_payment: 'Un paiement avec cette référence externe existe déjà\u00a0: le service n’accepte une référence externe qu’une fois.',
    duplicateExternalId_payout: 'Un transfert avec cette référence externe existe déjà\u00a0: le service n’accepte une référence externe qu’une fois.',
  },
  language: { label: 'Langue', system: 'Langue du système ({{language}})', en: 'English', fr: 'Français' },
  theme: { label: 'Thème', system: 'Système ({{theme}})', light: 'Clair', dark: 'Sombre' },
} as const satisfies Messages<typeof en>;
