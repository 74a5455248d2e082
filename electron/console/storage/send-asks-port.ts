/**
 * What a desktop asks the team sender (docs/team-sender.md; workspace migration 48): a team
 * workspace's only, absent on one desktop's SQLite journal (there is no sender there).
 */
import type { AskInput, SendAsk } from './postgres/send-asks';

export type { AskInput, SendAsk };

export interface SendAsksPort {
  /** Writes the ask (who asked is the database's session_user); refused for a profile the sender does not hold. */
  ask(input: AskInput): Promise<SendAsk>;
  /** The ask as it stands now (waiting, taken, done with its entry, or refused with why). */
  read(id: number): Promise<SendAsk | null>;
}
