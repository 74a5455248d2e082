import type english from '../en/audit';
import type { Messages } from '../types';

/** L’écran Journal d’audit et l’en-tête de son CSV (issue 25, point 5). */
const fr: Messages<typeof english> = {
  title: 'Audit',
  intro: 'Chaque action de chaque personne sur cet espace d’équipe, la plus récente d’abord. Personne ne peut modifier ni supprimer une ligne : la base de données le refuse.',
  unavailable: 'Le journal d’audit n’existe que sur un espace d’équipe. Ce poste tient son propre journal, utilisé par une seule personne : il n’y a pas de trace de qui a fait quoi.',
  loading: 'Chargement du journal d’audit',
  filters: 'Filtres',
  actor: 'Qui (identifiant)',
  action: 'Action',
  anyAction: 'Toutes les actions',
  from: 'Du (jour)',
  to: 'Au (jour, inclus)',
  subject: 'Le sujet contient',
  apply: 'Appliquer les filtres',
  clear: 'Effacer',
  export: 'Exporter en CSV',
  exported: '{{rows}} ligne(s) exportée(s) dans {{filename}}.',
  more: 'Afficher les lignes plus anciennes',
  empty: 'Aucune ligne du journal ne correspond à ces filtres.',
  caption: 'Journal d’audit, le plus récent d’abord',
  column: {
    at: 'Quand',
    actor: 'Qui',
    action: 'Action',
    subject: 'Sujet',
    before: 'Avant',
    after: 'Après',
    remark: 'Remarque',
  },
  actions: {
    sign_in: 'S’est connecté',
    import: 'A importé un fichier',
    confirm: 'A confirmé un lot',
    send: 'A envoyé',
    pause: 'A mis en pause',
    cancel: 'A annulé',
    request_approval: 'A demandé une approbation',
    approve: 'A approuvé',
    reject: 'A rejeté',
    withdraw: 'A retiré une demande',
    void_approval: 'Approbation annulée',
    policy_change: 'A modifié la politique d’approbation',
    role_change: 'A modifié un rôle',
  },
};
export default fr;
