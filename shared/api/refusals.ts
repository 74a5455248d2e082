/**
 * Why a batch action was refused, beyond its code (CONFLICT says only "does not fit the state"):
 * the screen says it in the user's language (batch:refusal.<key>) with these parameters; the
 * English message stays for the log and English readers.
 */
export const BATCH_REFUSALS = [
  'notStopped',
  'unknownRows',
  'nothingToRetry',
  'retriedAlready',
  'notCancelled',
  'nothingRemaining',
  'movedAlready',
  'rowsStillClaimed',
  'draftOnly',
  'noSentRows',
  'noInvalidRows',
  'joinNotSending',
  'joinSendingHere',
  'joinDesktop',
  'joinMayNotSend',
  'joinLocalSandbox',
  'sandboxBatchElsewhere',
] as const;
export type BatchRefusal = (typeof BATCH_REFUSALS)[number];
export interface FailureReason {
  key: BatchRefusal;
  params: Record<string, string | number>;
}
