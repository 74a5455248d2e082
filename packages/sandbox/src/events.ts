/**
 * The in-process event stream (status changes, wallet movements, engine switches), emitted only
 * after the SQLite transaction that caused them has committed.
 */
import type { Environment, FailedCode, TransactionStatus } from '../../../shared/contract';
import { TypedEmitter } from '../../../shared/events';
import { processLog } from './log';

export type TransactionKind = 'payment' | 'payout';

export interface StatusEvent {
  type: 'status';
  kind: TransactionKind;
  transactionId: string;
  appId: string;
  environment: Environment;
  /** Null for the first status of a new transaction. */
  from: TransactionStatus | null;
  to: TransactionStatus;
  failedCode: FailedCode | null;
  /** Engine time, in the spec's timestamp format. */
  at: string;
}

export interface WalletEvent {
  type: 'wallet';
  appId: string;
  environment: Environment;
  amount: number;
  balance: number;
  reason: string;
  transactionId: string | null;
  at: string;
}

export interface EngineSwitchEvent {
  type: 'engine';
  detail: 'maintenance-on' | 'maintenance-off' | 'settle-ms' | 'rate-limit' | 'reset' | 'clock';
}

/** For extensions (issue 4: webhook delivery attempts...) to use the same stream. */
export interface ExtensionEvent {
  type: 'extension';
  topic: string;
  data: unknown;
}

export type EngineEvent = StatusEvent | WalletEvent | EngineSwitchEvent | ExtensionEvent;
export type EngineEventListener = (event: EngineEvent) => void;

/** Fans events out; a failing listener is reported and never breaks the engine or other listeners. */
export class EventHub {
  private readonly emitter = new TypedEmitter<{ event: EngineEvent }>({
    onListenerError: (error) => processLog.error('engine: an event listener threw', { error }),
  });

  on(listener: EngineEventListener): () => void {
    return this.emitter.on('event', listener);
  }

  emit(event: EngineEvent): void {
    this.emitter.emit('event', event);
  }
}
