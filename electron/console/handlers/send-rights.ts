/**
 * Every send starts here (issue 36 item 1): a login whose roles do not send (a workspace's support,
 * an approver or an admin only, a read-only login) is refused by the console before anything is
 * written or asked of the service, with words that say why; the workspace's grants and triggers
 * refuse it too, but a person should never meet a database error. One desktop's own journal is one
 * person with every right (../storage/login-rights-port.ts).
 */
import type { LoginRightsPort } from '../storage/login-rights-port';
import { HandlerFailure } from './failure';

/** MAY_NOT_SEND unless this store's login sends. */
export async function requireSends(storage: LoginRightsPort, what: string): Promise<void> {
  if ((await storage.loginRights()).sends) return;
  throw new HandlerFailure('MAY_NOT_SEND', `Your role in the team workspace may not send money, so ${what} was refused: only a finance login sends payouts, batches and resends. Nothing was sent.`);
}
