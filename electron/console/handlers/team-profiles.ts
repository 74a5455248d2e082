/**
 * Team profiles on a team workspace (docs/decisions/team-profiles.md): an admin writes the
 * definitions (the workspace refuses anyone else, migration 33), every desktop gives its own
 * public keys for them (settings.json) and its secret keys (the OS keychain, `secrets:set`).
 * On this desktop's own journal each answers TEAM_PROFILES_UNAVAILABLE.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_HEADER_WORD } from '../../../shared/contract';
import { LOCAL_SANDBOX_ID } from '../settings';
import type { TeamProfilesPort } from '../storage/team-profiles-port';
import { HandlerFailure, type Context, type HandlerImpls } from './context';
import { checkKeyShapes } from './profile-keys';

export function teamProfileHandlers(context: Context): HandlerImpls<'teamProfiles:save' | 'teamProfiles:delete' | 'teamProfiles:publish' | 'teamProfiles:setKeys'> {
  const { deps } = context;
  const now = () => deps.clock.now();

  function port(): TeamProfilesPort {
    const teamProfiles = deps.storage.teamProfiles;
    if (!teamProfiles?.available) {
      throw new HandlerFailure('TEAM_PROFILES_UNAVAILABLE', 'Team profiles exist on a team workspace only: this console records in this desktop\'s own journal.');
    }
    return teamProfiles;
  }

  function changed(): void {
    deps.emit('profiles:changed', { activeId: context.activeProfile().id });
  }

  return {
    async 'teamProfiles:save'(input) {
      const teamProfiles = port();
      if (input.id === LOCAL_SANDBOX_ID) throw new HandlerFailure('CONFLICT', 'The local sandbox profile is built in: it is every desktop\'s own.');
      const saved = await teamProfiles.save({ id: input.id ?? randomUUID(), name: input.name, environment: input.environment, baseUrl: input.baseUrl, headerWord: input.headerWord || DEFAULT_HEADER_WORD }, now());
      await context.teamProfiles.refresh();
      changed();
      return { id: saved.id };
    },

    async 'teamProfiles:delete'({ id }) {
      const deleted = await port().remove(id);
      await context.teamProfiles.refresh();
      changed();
      return { deleted };
    },

    async 'teamProfiles:publish'({ id }) {
      const teamProfiles = port();
      const own = deps.settings.profile(id);
      if (!own) throw new HandlerFailure('NOT_FOUND', `No profile of this desktop with id ${id}.`);
      // The definition only: the public keys stay this desktop's (they name its keychain entries),
      // and each colleague gives their own.
      await teamProfiles.save({ id: own.id, name: own.name, environment: own.environment, baseUrl: own.baseUrl, headerWord: own.headerWord }, now());
      await context.teamProfiles.refresh();
      changed();
      return { id: own.id };
    },

    async 'teamProfiles:setKeys'({ profileId, paymentPublicKey, payoutPublicKey }) {
      port();
      const known = context.teamProfiles.known().some((profile) => profile.id === profileId) || (await context.teamProfiles.refresh()).some((profile) => profile.id === profileId);
      if (!known) throw new HandlerFailure('NOT_FOUND', `The team workspace has no profile with id ${profileId}.`);
      const profile = context.resolveProfile(profileId);
      checkKeyShapes({ environment: profile.environment, paymentPublicKey, payoutPublicKey });
      deps.settings.setTeamKeys(profileId, { paymentPublicKey, payoutPublicKey });
      // Read again: what this desktop keeps of the team's profiles names the payout key it now uses.
      await context.teamProfiles.refresh();
      changed();
      return { stored: true };
    },
  };
}
