/**
 * A payout of a team profile whose keys are with the team sender (docs/team-sender.md): this
 * desktop has no key for it and never POSTs for it. It writes an ask (the workspace stamps who asked)
 * and waits for the sender's answer, then reads the entry the sender wrote, as the screens read a
 * colleague's; the entry is followed live from then on like any other. The wait listens: the
 * workspace's change channel names the ask when the sender answers it (migration 48), and the ask is
 * read then; a slow read every `everyMs` covers a listening connection that was lost.
 */
import type { TransactionRequest } from '../../../shared/contract';
import { CONSOLE_ERROR_CODES, type JournalTransaction } from '../../../shared/api';
import type { AskInput, SendAsksPort } from '../storage/send-asks-port';
import type { ChangesPort } from '../storage/changes-port';
import { HandlerFailure } from './failure';

/** How long this desktop waits for the sender's answer before saying where to look, and how often it reads the ask unwoken. */
export interface SenderWait {
  everyMs: number;
  forMs: number;
}

export const SENDER_WAIT: SenderWait = { everyMs: 2_000, forMs: 60_000 };

/** The store's asks and its change events (the answer is heard there). */
export interface SenderAsks {
  asks: SendAsksPort | undefined;
  changes: ChangesPort;
}

export async function payoutBySender(
  sender: SenderAsks,
  profile: { id: string; name: string },
  request: TransactionRequest,
  entryOf: (id: string) => Promise<JournalTransaction>,
  wait: SenderWait = SENDER_WAIT,
): Promise<JournalTransaction> {
  return askAndWait(sender, profile, { kind: 'payout', profileId: profile.id, request }, 'payout', entryOf, wait);
}

/**
 * Send again (an entry looked up and found missing) of a profile whose keys are with the team
 * sender: a resend ask; the sender sends it through the console's resend path (the journal's rules:
 * outcome unknown, looked up, not found) and answers with the entry.
 */
export async function resendBySender(
  sender: SenderAsks,
  profile: { id: string; name: string },
  entryId: string,
  entryOf: (id: string) => Promise<JournalTransaction>,
  wait: SenderWait = SENDER_WAIT,
): Promise<JournalTransaction> {
  return askAndWait(sender, profile, { kind: 'resend', profileId: profile.id, entryId }, 'resend', entryOf, wait);
}

async function askAndWait(
  sender: SenderAsks,
  profile: { id: string; name: string },
  input: AskInput,
  what: 'payout' | 'resend',
  entryOf: (id: string) => Promise<JournalTransaction>,
  wait: SenderWait,
): Promise<JournalTransaction> {
  const words = what === 'payout' ? 'this payout' : 'this payout again';
  const { asks } = sender;
  if (!asks) throw new HandlerFailure('CONFLICT', `"${profile.name}" is sent by the team sender, which only a team workspace has.`);
  // Heard from before the ask is written: an answer committed between a read and the next wait is not missed.
  const heard = hearAsks(sender.changes);
  try {
    const ask = await asks.ask(input);
    heard.only(ask.id);
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
      await heard.next(Math.min(wait.everyMs, Math.max(0, giveUp - Date.now()) + 1));
    }
  } finally {
    heard.stop();
  }
}

/**
 * The change events of asks to the team sender: `next(ms)` resolves when the asked one changed since
 * the last call (or `everything`: the listening connection was lost and is back), or after `ms` at
 * the latest. The ask's own insert is the first change naming it (the workspace notifies in commit
 * order) and wakes nothing: the first read follows the insert anyway.
 */
function hearAsks(changes: ChangesPort): { only(id: number): void; next(ms: number): Promise<void>; stop(): void } {
  let wanted: string | null = null;
  let insertHeard = false;
  const early = new Set<string>();
  let pending = false;
  let wake: (() => void) | null = null;
  function heard(): void {
    pending = true;
    wake?.();
  }
  const unsubscribe = changes.subscribe((batch) => {
    for (const change of batch) {
      if (change.kind === 'everything') heard();
      else if (change.kind !== 'ask') continue;
      else if (wanted === null) early.add(change.id);
      else if (change.id !== wanted) continue;
      else if (!insertHeard) insertHeard = true;
      else heard();
    }
  });
  return {
    only(id) {
      wanted = String(id);
      insertHeard = early.has(wanted);
      early.clear();
    },
    next(ms) {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = null;
          pending = false;
          resolve();
        }
        wake = done;
      });
    },
    stop() {
      wake?.();
      unsubscribe();
    },
  };
}
