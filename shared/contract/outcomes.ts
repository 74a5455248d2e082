/**
 * The local sandbox's deterministic outcomes by phone number (payments and payouts alike).
 * The engine acts on this table and the console's Sandbox panel shows it.
 */
import type { FailedCode, TransactionStatus } from './codes';

export interface SandboxOutcome {
  phoneNumber: string;
  finalStatus: Extract<TransactionStatus, 'completed' | 'failed' | 'cancelled'>;
  failedCode: FailedCode | null;
  /** How it gets there. */
  behaviour: 'settles' | 'expires' | 'needs-verify';
  description: string;
}

export const SANDBOX_OUTCOMES: readonly SandboxOutcome[] = [
  { phoneNumber: '+237650000001', finalStatus: 'completed', failedCode: null, behaviour: 'settles', description: 'completed' },
  { phoneNumber: '+237650000002', finalStatus: 'failed', failedCode: 'PAYER_NOT_FOUND', behaviour: 'settles', description: 'failed: payer not found' },
  { phoneNumber: '+237650000003', finalStatus: 'failed', failedCode: 'NOT_ENOUGH_FUNDS', behaviour: 'settles', description: 'failed: not enough funds' },
  { phoneNumber: '+237650000004', finalStatus: 'failed', failedCode: 'EXPIRED', behaviour: 'expires', description: 'customer never answers: processing until the expiry window passes, then failed (EXPIRED)' },
  { phoneNumber: '+237650000005', finalStatus: 'failed', failedCode: 'TRANASACTION_CANCELLED', behaviour: 'settles', description: 'failed: payer declined (TRANASACTION_CANCELLED)' },
  { phoneNumber: '+237650000006', finalStatus: 'failed', failedCode: 'SERVICE_UNAVAILABLE', behaviour: 'settles', description: 'failed: service unavailable' },
  { phoneNumber: '+237650000007', finalStatus: 'failed', failedCode: 'PROVIDER_INTERNAL_PROCESSING_ERROR', behaviour: 'settles', description: 'failed: provider internal processing error' },
  { phoneNumber: '+237650000008', finalStatus: 'completed', failedCode: null, behaviour: 'needs-verify', description: 'completed at the provider, but stays processing until Verify asks the provider' },
  { phoneNumber: '+237650000009', finalStatus: 'cancelled', failedCode: null, behaviour: 'settles', description: 'cancelled' },
];

/** The outcome for a phone number: any number not in the table completes. */
export function sandboxOutcomeFor(phoneNumber: string): SandboxOutcome {
  return (
    SANDBOX_OUTCOMES.find((row) => row.phoneNumber === phoneNumber) ?? {
      phoneNumber,
      finalStatus: 'completed',
      failedCode: null,
      behaviour: 'settles',
      description: 'completed',
    }
  );
}
