/**
 * The team profiles this console knows (docs/decisions/team-profiles.md): the workspace's
 * definitions as last read, each with this desktop's own public keys (settings.json `teamKeys`,
 * or those of its own profile of the same id, the one it published); the secrets stay in the OS
 * keychain under those public keys, read only by the HTTP client's signer.
 *
 * Handlers resolve profiles synchronously (a batch row, a Verify), so the definitions are kept in
 * memory and read again from the workspace at start, when Settings lists them, and when an entry
 * names an id not known yet (a colleague's admin added it a moment ago).
 */
import type { KeyType } from '../../../shared/contract';
import type { Profile } from '../../../shared/api';
import type { TeamProfile } from '../storage/team-profiles-port';
import type { StoragePort } from '../storage/port';
import type { Settings, StoredProfile, TeamKeys, TeamProfileSeen } from '../settings';
import { HandlerFailure } from './failure';

type Resolved = StoredProfile & { builtIn: boolean; team?: boolean };

export interface TeamProfileBook {
  /** True on a team workspace: its profiles are the team's, a desktop's own are "this desktop only". */
  onWorkspace(): boolean;
  /** The definitions as last read (none on one desktop's journal). */
  known(): TeamProfile[];
  /** Reads the workspace's definitions again. */
  refresh(): Promise<TeamProfile[]>;
  /** The team profile of this id with this desktop's keys, when the workspace has one. */
  resolve(id: string): Resolved | null;
  /** This desktop's public keys for a team profile. */
  keysOf(id: string): TeamKeys;
  /** What the screens show of where a profile lives (nothing on one desktop's journal: unchanged there). */
  scopeOf(profile: Resolved): Pick<Profile, 'scope'>;
  /** On a workspace money moves in live only through a team profile: a desktop's own live profile is refused. */
  requireTeamForLive(profile: { id: string; name: string; environment: string; builtIn?: boolean; team?: boolean }): void;
  /**
   * On this desktop's own journal, a team profile read earlier (kept in settings.json) is never
   * usable: it belongs to the team and its approval policy (docs/decisions/leaving-keeps-the-policy.md).
   */
  refuseTeamOffWorkspace(id: string): void;
  /**
   * On this desktop's own journal, a desktop profile that sends payouts with a team profile's
   * payout public key (its environment's, whatever address it names) is refused: the team's
   * approval policy covers that account.
   */
  refuseTeamPayoutKey(profile: { name: string; environment: string; baseUrl: string; payoutPublicKey: string; builtIn?: boolean; team?: boolean }): void;
  /** True when the team sender holds this team profile's keys: this desktop asks it to send, never signs (docs/team-sender.md). */
  senderHolds(id: string): boolean;
  /** The failure when this desktop has no keys for a team profile yet (the screens offer to add them). */
  keysMissing(profile: Resolved, keyType: KeyType): HandlerFailure;
}

export function teamProfileBook(deps: { storage: StoragePort; settings: Settings }): TeamProfileBook {
  let definitions: TeamProfile[] = [];
  const onWorkspace = () => deps.storage.teamProfiles?.available === true;

  function keysOf(id: string): TeamKeys {
    const own = deps.settings.teamKeys(id);
    if (own) return own;
    const published = deps.settings.profile(id);
    return published ? { paymentPublicKey: published.paymentPublicKey, payoutPublicKey: published.payoutPublicKey } : { paymentPublicKey: '', payoutPublicKey: '' };
  }

  /** What stays on this desktop of the team's profiles when it leaves: where they send and this desktop's payout key, never a secret. */
  function keepSeen(): void {
    const seen: TeamProfileSeen[] = definitions.map(({ id, name, environment, baseUrl }) => ({ id, name, environment, baseUrl, payoutPublicKey: keysOf(id).payoutPublicKey }));
    if (JSON.stringify(seen) !== JSON.stringify(deps.settings.teamProfilesSeen())) deps.settings.setTeamProfilesSeen(seen);
  }

  const policyWords = 'the team’s approval policy covers it, and on this desktop only nobody can approve what it sends';

  return {
    onWorkspace,
    known: () => [...definitions],
    async refresh() {
      if (!onWorkspace()) return (definitions = []);
      definitions = await deps.storage.teamProfiles!.list();
      keepSeen();
      return [...definitions];
    },
    resolve(id) {
      if (!onWorkspace()) return null;
      const definition = definitions.find((profile) => profile.id === id);
      if (!definition) return null;
      const { id: _id, name, environment, baseUrl, headerWord } = definition;
      return { id, name, environment, baseUrl, headerWord, ...keysOf(id), builtIn: false, team: true };
    },
    keysOf,
    senderHolds: (id) => onWorkspace() && definitions.some((profile) => profile.id === id && profile.keysHeldBy === 'sender'),
    scopeOf(profile) {
      if (!onWorkspace() || profile.builtIn) return {};
      return { scope: profile.team ? 'team' : 'desktop' };
    },
    requireTeamForLive(profile) {
      if (!onWorkspace() || profile.builtIn || profile.team || profile.environment !== 'live') return;
      throw new HandlerFailure(
        'PROFILE_DESKTOP_ONLY',
        `"${profile.name}" is this desktop's own live profile: on a team workspace live payouts go through a team profile, so every colleague can follow them up. Ask an admin to publish it to the team, or pick a team profile.`,
        { profileId: profile.id },
      );
    },
    refuseTeamOffWorkspace(id) {
      if (onWorkspace()) return;
      const seen = deps.settings.teamProfilesSeen().find((profile) => profile.id === id);
      if (!seen) return;
      throw new HandlerFailure(
        'TEAM_POLICY_APPLIES',
        `"${seen.name}" is a team profile: it belongs to the team workspace and its approval policy, and this console records on this desktop only, where nobody can approve. Choose the team workspace again (Settings → Team workspace) to use it.`,
        { profileId: id },
      );
    },
    refuseTeamPayoutKey(profile) {
      if (onWorkspace() || profile.builtIn || profile.team || profile.payoutPublicKey === '') return;
      const match = deps.settings
        .teamProfilesSeen()
        .find((seen) => seen.environment === profile.environment && (seen.payoutPublicKey === profile.payoutPublicKey || keysOf(seen.id).payoutPublicKey === profile.payoutPublicKey));
      if (!match) return;
      throw new HandlerFailure(
        'TEAM_POLICY_APPLIES',
        `"${profile.name}" uses the payout public key of the team profile "${match.name}" (${match.environment}, ${match.baseUrl}): ${policyWords}. Send it from the team workspace (Settings → Team workspace), or give this profile a key of this desktop's own.`,
      );
    },
    keysMissing(profile, keyType) {
      return new HandlerFailure(
        'TEAM_KEYS_MISSING',
        `This desktop has no ${keyType} keys yet for the team profile "${profile.name}": add this desktop's public key and secret key for it in Settings → Profiles.`,
        { profileId: profile.id },
      );
    },
  };
}
