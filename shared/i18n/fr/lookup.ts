import type { Messages } from '../types';
import type en from '../en/lookup';

export default {
  title: 'Rechercher une transaction',
  intro: 'Retrouvez un paiement ou un transfert par l’identifiant de transaction du service ou par votre référence externe.',
  form: 'Rechercher',
  kind: 'Type',
  payment: 'Paiement',
  payout: 'Transfert',
  by: 'Rechercher par',
  transactionId: 'Identifiant de transaction',
  externalId: 'Référence externe',
  transactionIdPlaceholder: 'TE_…',
  externalIdPlaceholder: 'votre référence',
  button: 'Rechercher',
  bySender: 'Les clés de ce profil sont chez l’expéditeur de l’équipe, qui suit ses transactions\u00a0: la recherche trouve ce qui est dans le journal de l’équipe et n’interroge pas le service.',
  busy: 'Recherche en cours',
  empty: 'Saisissez un identifiant à rechercher.',
  notFound: {
    payment_transaction_id: 'Aucun paiement avec l’identifiant de transaction « {{id}} » en {{environment}} pour {{profile}}.',
    payment_external_id: 'Aucun paiement avec la référence externe « {{id}} » en {{environment}} pour {{profile}}.',
    payout_transaction_id: 'Aucun transfert avec l’identifiant de transaction « {{id}} » en {{environment}} pour {{profile}}.',
    payout_external_id: 'Aucun transfert avec la référence externe « {{id}} » en {{environment}} pour {{profile}}.',
  },
  approval: {
    awaiting: 'En attente d’approbation (demande {{id}})\u00a0: il n’a pas été envoyé, le service ne le connaît donc pas encore.',
    ready: 'Approuvé, prêt à envoyer (demande {{id}})\u00a0: il n’a pas encore été envoyé.',
    rejected: 'Sa demande d’approbation {{id}} a été refusée\u00a0: il n’a jamais été envoyé.',
    withdrawn: 'Sa demande d’approbation {{id}} a été retirée\u00a0: il n’a jamais été envoyé.',
    void: 'Sa demande d’approbation {{id}} a été annulée (modifiée après la demande)\u00a0: il n’a jamais été envoyé.',
    open: 'Ouvrir la demande {{id}}',
  },
  isOther: {
    payment: 'Il existe en tant que paiement.',
    payout: 'Il existe en tant que transfert.',
  },
  switchTo: {
    payment: 'Le rechercher comme paiement',
    payout: 'Le rechercher comme transfert',
  },
} as const satisfies Messages<typeof en>;
