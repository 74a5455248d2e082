/**
 * What the login behind a store may record, asked once at start (issue 25: an admin-only login
 * opens the console). A team workspace's roles decide what a desktop's start-up may do on its
 * behalf: a login that may not write entries or batches must not try, or the console never opens
 * (docs/decisions/start-up-by-role.md). One desktop's SQLite journal is one person with every right.
 */
export interface LoginRights {
  /** Records payouts and batches: a workspace's finance role (always, on one desktop). */
  sends: boolean;
  /** Records what the service says of an entry (the follow-ups, the sweeper): finance or support. */
  followsUp: boolean;
}

export interface LoginRightsPort {
  loginRights(): Promise<LoginRights>;
}

/** One desktop: the person at it holds every right. */
export const EVERY_RIGHT: LoginRights = { sends: true, followsUp: true };
