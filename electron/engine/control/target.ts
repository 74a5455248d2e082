/**
 * The engine operations the control API drives: the same ones the console calls in-process on
 * the `EngineHandle`, so both paths behave alike.
 */
import type { EngineHandle } from '../index';

export type ControlTarget = Pick<
  EngineHandle,
  'settleNow' | 'setSettleMs' | 'setRateLimit' | 'setMaintenance' | 'walletBalance' | 'topUp' | 'ledger' | 'timeline' | 'transaction' | 'reset'
>;
