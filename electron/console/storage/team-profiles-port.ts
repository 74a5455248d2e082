/**
 * Team profiles (issue 24): on a team workspace the connection definitions (id, name,
 * environment, base URL, header word) live in the workspace, so every desktop knows the profile an
 * entry names. Never a key: each desktop keeps its own public keys in its settings and its secret
 * keys in its OS keychain (docs/decisions/team-profiles.md). The workspace's table is migration 33
 * (postgres/team-profiles.ts): admin writes, finance and support read.
 *
 * One desktop's SQLite journal has no team: its port answers an empty list and refuses writes with
 * TeamProfilesUnavailable (its profiles are the desktop's own, in settings.json, unchanged).
 */
import type { Environment } from '../../../shared/contract';

/** A team profile's definition as the workspace keeps it: nothing secret, no key at all. */
export interface TeamProfileDefinition {
  id: string;
  name: string;
  environment: Environment;
  baseUrl: string;
  headerWord: string;
}

export interface TeamProfile extends TeamProfileDefinition {
  /** Who wrote it last (the database's session_user). */
  updatedBy: string;
  updatedAt: number;
  /** Who holds its secret keys (workspace migration 48; docs/team-sender.md): each finance desktop (absent: the same), or the team sender. */
  keysHeldBy?: 'desktops' | 'sender';
}

/** Team profiles exist on a team workspace only. */
export class TeamProfilesUnavailable extends Error {
  constructor() {
    super('Team profiles exist on a team workspace only: this console records in this desktop\'s own journal, where every profile is this desktop\'s.');
    this.name = 'TeamProfilesUnavailable';
  }
}

export interface TeamProfilesPort {
  /** False on one desktop's journal: list is empty, save and remove throw TeamProfilesUnavailable. */
  readonly available: boolean;
  /** Every team profile, by name. */
  list(): Promise<TeamProfile[]>;
  /** Adds or replaces one definition (admin only: the database refuses anyone else). */
  save(definition: TeamProfileDefinition, at: number): Promise<TeamProfile>;
  /** Removes one definition (admin only); false when there was none. Entries keep naming its id. */
  remove(id: string): Promise<boolean>;
}

/** The SQLite store's answer: this desktop has no team. */
export const desktopTeamProfiles: TeamProfilesPort = {
  available: false,
  async list() {
    return [];
  },
  async save() {
    throw new TeamProfilesUnavailable();
  },
  async remove() {
    throw new TeamProfilesUnavailable();
  },
};
