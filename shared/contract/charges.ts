/**
 * Whether a transaction's fee and net amount mean anything: a failed or cancelled transaction
 * charged nothing (the screens say "Not charged", the exports leave those cells empty).
 */
export function chargesNothing(status: string | null | undefined): boolean {
  return status === 'failed' || status === 'cancelled';
}
