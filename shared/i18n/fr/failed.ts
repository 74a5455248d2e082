import type { Messages } from '../types';
import type en from '../en/failed';

export default {
  PAYER_NOT_FOUND: 'Le compte mobile money du client est introuvable.',
  NOT_ENOUGH_FUNDS: 'Le client n’avait pas assez d’argent sur son compte.',
  EXPIRED: 'Le client n’a pas répondu à la demande à temps.',
  TRANASACTION_CANCELLED: 'Le client a refusé la demande sur son téléphone.',
  SERVICE_UNAVAILABLE: 'Le service de l’opérateur mobile money était indisponible.',
  PROVIDER_INTERNAL_PROCESSING_ERROR: 'L’opérateur mobile money a eu une erreur interne.',
} as const satisfies Messages<typeof en>;
