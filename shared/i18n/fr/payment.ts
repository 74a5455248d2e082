import type { Messages } from '../types';
import type en from '../en/payment';

export default {
  title: 'Nouveau paiement',
  intro: 'Demandez à un client de payer\u00a0: il valide la demande sur son téléphone.',
  introProfile: 'Demandez à un client de payer\u00a0: il valide la demande sur son téléphone (profil {{name}}, {{environment}}).',
  form: 'Nouveau paiement',
  sending: 'Envoi…',
  sendingLabel: 'Envoi du paiement',
  submit: 'Demander le paiement',
  openExisting: 'Ouvrir ce paiement',
} as const satisfies Messages<typeof en>;
