/**
 * The team sandbox the team sender serves (docs/team-sender.md "One sandbox for the team"): a team
 * workspace's only; its control API's URL and token are read as this login, an admin's alone.
 */

/** What this login may use of the team sandbox's control API. */
export type TeamSandboxControlAccess = { state: 'none' } | { state: 'not-admin' } | { state: 'ok'; controlUrl: string; token: string };

export interface TeamSandboxPort {
  /** Its control API's URL and token, read as this login (an admin's only). */
  control(): Promise<TeamSandboxControlAccess>;
}
