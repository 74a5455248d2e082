/** The human sentence of each transaction `failed_code` (spec section 3). */
export default {
  PAYER_NOT_FOUND: 'The customer’s mobile-money account was not found.',
  NOT_ENOUGH_FUNDS: 'The customer did not have enough money in their account.',
  EXPIRED: 'The customer did not answer the prompt in time.',
  TRANASACTION_CANCELLED: 'The customer declined the prompt on their phone.',
  SERVICE_UNAVAILABLE: 'The mobile-money operator’s service was unavailable.',
  PROVIDER_INTERNAL_PROCESSING_ERROR: 'The mobile-money operator had an internal error.',
} as const;
