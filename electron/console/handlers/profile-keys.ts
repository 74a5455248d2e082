/** Public keys checked against their profile (a desktop's own or this desktop's keys for a team profile). */
import type { Environment, FieldErrors, KeyType } from '../../../shared/contract';
import { HandlerFailure } from './context';

/** `pk_<environment>_<type>_...` (spec 5.1): a key of another environment or type is a typo. */
function checkKeyShape(fields: FieldErrors, field: string, key: string, environment: Environment, type: KeyType): void {
  const match = /^pk_(sandbox|live)_(payment|payout)_/.exec(key);
  if (!match) return; // keys of other shapes are the service's business
  if (match[1] !== environment) (fields[field] ??= []).push(`is a ${match[1]} key, but the profile is ${environment}`);
  if (match[2] !== type) (fields[field] ??= []).push(`is a ${match[2]} key, not a ${type} key`);
}

export function checkKeyShapes(input: { environment: Environment; paymentPublicKey: string; payoutPublicKey: string }): void {
  const fields: FieldErrors = {};
  checkKeyShape(fields, 'paymentPublicKey', input.paymentPublicKey, input.environment, 'payment');
  checkKeyShape(fields, 'payoutPublicKey', input.payoutPublicKey, input.environment, 'payout');
  if (input.paymentPublicKey !== '' && input.paymentPublicKey === input.payoutPublicKey) {
    (fields.payoutPublicKey ??= []).push('must differ from the payment key (key pairs are per type)');
  }
  if (Object.keys(fields).length > 0) throw new HandlerFailure('INVALID_INPUT', 'The profile has invalid keys.', { fields });
}
