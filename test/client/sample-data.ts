/** Sample profile, keys and API objects for the client tests. */
import type { ClientProfile } from '../../electron/client';
import type { FullTransaction, InitiatedTransaction, TransactionRequest } from '../../shared/contract/schemas';

export const PAYMENT_PUBLIC = 'pk_sandbox_payment_7Hq2Lx';
export const PAYOUT_PUBLIC = 'pk_sandbox_payout_9Zr4Mw';
export const SECRETS: Record<string, string> = {
  [PAYMENT_PUBLIC]: 'sk_sandbox_payment_S3cr3tPaym3ntValue',
  [PAYOUT_PUBLIC]: 'sk_sandbox_payout_S3cr3tPay0utValue',
};
export const ALL_SECRETS = Object.values(SECRETS);

/** 2026-11-22T00:00:00.500Z: the timestamp header must read 1795305600. */
export const FIXED_NOW_MS = Date.UTC(2026, 10, 22, 0, 0, 0, 500);
export const FIXED_NOW_SECONDS = Math.floor(FIXED_NOW_MS / 1000);

export function profileFor(baseUrl: string, extra: Partial<ClientProfile> = {}): ClientProfile {
  return { baseUrl, environment: 'sandbox', paymentPublicKey: PAYMENT_PUBLIC, payoutPublicKey: PAYOUT_PUBLIC, ...extra };
}

export const paymentRequest: TransactionRequest = {
  payment_method: 'service_demo',
  amount: 2500,
  phone_number: '+237650000001',
  customer: { first_name: 'Amélie', last_name: 'Ngono', email: 'amelie@example.com' },
  external_id: 'order-77',
  description: 'Café crème ☕ for two',
  metadata: { basket: ['€', '日本'] },
};

export const initiated: InitiatedTransaction = {
  transaction_id: 'TE_8f2k1',
  ref: '0d7c1f8e-2f43-4c55-9a6e-8b1a0c6f1e21',
  external_id: 'order-77',
  type: 'payment',
  status: 'processing',
  amount: 2500,
  currency: 'XAF',
  description: 'Café crème ☕ for two',
  account_name: 'Amélie Ngono',
  account_number: '+2376****001',
  account_type: 'mobile_money',
  reason: null,
  failed_code: null,
  failed_at: null,
  cancelled_at: null,
  completed_at: null,
  customer: { ref: 'c1', first_name: 'Amélie', last_name: 'Ngono', email: 'amelie@example.com', metadata: null },
  payment_method: { ref: 'm1', name: 'Service demo', code: 'service_demo' },
  metadata: { basket: ['€', '日本'] },
  created_at: '2026-11-21T10:00:00.123456Z',
  updated_at: '2026-11-21T10:00:00.123456Z',
};

export const full: FullTransaction = {
  ...initiated,
  status: 'completed',
  completed_at: '2026-11-21T10:00:09.000001Z',
  fee: 50,
  net_amount: 2450,
  fee_payer: 'merchant',
  application: { id: 'app_1', ref: 'a1', name: 'Shop' },
};

/** A success envelope; `message: null` leaves the field out, as the spec's retrieve sample does. */
export function success(data: unknown, message: string | null = 'OK'): Record<string, unknown> {
  return message === null ? { success: true, data } : { success: true, message, data };
}

export function failure(code: string, message: string, errors: unknown = []): Record<string, unknown> {
  return { success: false, message, code, errors };
}

/** A secret source that counts calls per public key. */
export function countingSecrets(): { secretFor: (publicKey: string) => Promise<string>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    secretFor: async (publicKey: string) => {
      calls.push(publicKey);
      const secret = SECRETS[publicKey];
      if (secret === undefined) throw new Error(`no secret stored for ${publicKey}`);
      return secret;
    },
  };
}
