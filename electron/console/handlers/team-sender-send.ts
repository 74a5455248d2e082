/**
 * A payout of a team profile whose keys are with the team sender (docs/team-sender.md): this
 * desktop has no key for it and never POSTs for it. It writes an ask (the workspace stamps who asked)
 * and waits for the sender's answer, then reads the entry the sender wrote, as the screens read a
 * colleague's; the entry is followed live from then on like any other.
 */
import type { TransactionRequest } from '../../../shared/contract';
import { CONSOLE_ERROR_CODES, type JournalTransaction } from '../../../shared/api';
import type { AskInput, SendAsksPort } from '../storage/send-asks-port';
import { HandlerFailure } from './failure';

/** How long this desktop waits for the sender's answer before saying where to look. */
export interface SenderWait {
  everyMs: number;
  forMs: number;
}

export const SENDER_WAIT: SenderWait = { everyMs: 200, forMs: 60_000 };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function payoutBySender(
  asks: SendAsksPort | undefined,
  profile: { id: string; name: string },
  request: TransactionRequest,
  entryOf: (id: string) => Promise<JournalTransaction>,
  wait: SenderWait = SENDER_WAIT,
): Promise<JournalTransaction> {
  return askAndWait(asks, profile, { kind: 'payout', profileId: profile.id, request }, 'payout', entryOf, wait);
}

/**
 * Send again (an entry looked up and found missing) of a profile whose keys are with the team
 * sender: a resend ask; the sender sends it through the console's resend path (the journal's rules:
 * outcome unknown, looked up, not found) and answers with the entry.
 */
export async function resendBySender(
  asks: SendAsksPort | undefined,
  profile: { id: string; name: string },
  entryId: string,
  entryOf: (id: string) => Promise<JournalTransaction>,
  wait: SenderWait = SENDER_WAIT,
): Promise<JournalTransaction> {
  return askAndWait(asks, profile, { kind: 'resend', profileId: profile.id, entryId }, 'resend', entryOf, wait);
}

async function askAndWait(
  asks: SendAsksPort | undefined,
  profile: { id: string; name: string },
  input: AskInput,
  what: 'payout' | 'resend',
  entryOf: (id: string) => Promise<JournalTransaction>,
  wait: SenderWait,
): Promise<JournalTransaction> {
  const words = what === 'payout' ? 'this payout' : 'this payout again';
  if (!asks) throw new HandlerFailure('CONFLICT', `"${profile.name}" is sent by the team sender, which only a team workspace has.`);
  const ask = await asks.ask(input);
  const giveUp = Date.now() + wait.forMs;
  for (;;) {
    const now = await asks.read(ask.id);
    if (now?.state === 'done' && now.entryResult) return entryOf(now.entryResult);
    if (now?.state === 'refused' || (now?.state === 'done' && !now.entryResult)) {
      const answer = (now.answer ?? {}) as { code?: unknown; message?: unknown };
      const code = typeof answer.code === 'string' && (CONSOLE_ERROR_CODES as readonly string[]).includes(answer.code) ? answer.code : 'NOT_SENT';
      throw new HandlerFailure(code, `The team sender did not send ${words}: ${typeof answer.message === 'string' ? answer.message : 'it refused the ask'} (ask ${ask.id}).`);
    }
    if (Date.now() > giveUp) {
      throw new HandlerFailure('CONFLICT', `Asked the team sender to send ${words} (ask ${ask.id}); it has not answered yet. Do not send it again: it shows in History once the sender has sent it.`);
    }
    await pause(wait.everyMs);
  }
}
