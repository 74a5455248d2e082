/**
 * Profiles, secrets and the small reads about the active profile (app info, methods, balance).
 */
import { balanceSchema, KNOWN_METHOD_CODES, SANDBOX_ONLY_METHOD_CODES, type KeyType } from '../../../shared/contract';
import { LOCAL_SANDBOX_ID } from '../settings';
import { HandlerFailure, type Context, type HandlerImpls } from './context';
import { readFailure } from './outcomes';
import { checkKeyShapes } from './profile-keys';

export function profileHandlers(
  context: Context,
): HandlerImpls<
  | 'app:info'
  | 'preferences:set'
  | 'profiles:list'
  | 'profiles:save'
  | 'profiles:delete'
  | 'profiles:activate'
  | 'secrets:set'
  | 'secrets:has'
  | 'secrets:delete'
  | 'methods:list'
  | 'balance:get'
> {
  const { deps } = context;

  function profileForSecret(profileId: string, keyType: KeyType) {
    const profile = context.resolveProfile(profileId);
    if (profile.builtIn) throw new HandlerFailure('CONFLICT', 'The local sandbox keys are built in: they are not stored in the keychain.');
    const publicKey = keyType === 'payment' ? profile.paymentPublicKey : profile.payoutPublicKey;
    if (publicKey === '') {
      throw new HandlerFailure('INVALID_INPUT', `"${profile.name}" has no ${keyType} public key: add the public key first.`, {
        fields: { keyType: [`the profile has no ${keyType} public key`] },
      });
    }
    return publicKey;
  }

  /** Public keys still used by a profile other than `exceptId`. */
  function keysInUse(exceptId: string): Set<string> {
    return new Set(deps.settings.profiles().filter((p) => p.id !== exceptId).flatMap((p) => [p.paymentPublicKey, p.payoutPublicKey]));
  }

  return {
    async 'app:info'() {
      return {
        version: deps.version,
        transport: deps.transport,
        activeProfileId: context.activeProfile().id,
        allowLive: deps.allowLive,
        language: deps.settings.language(),
        theme: deps.settings.theme(),
        notices: [...(deps.notices?.() ?? []), ...deps.settings.notices().map(({ code, message, backupPath }) => ({ code, message, ...(backupPath ? { params: { backupPath } } : {}) }))],
      };
    },

    async 'preferences:set'({ language, theme }) {
      if (language !== undefined) deps.settings.setLanguage(language);
      if (theme !== undefined) deps.settings.setTheme(theme);
      return { ...(language !== undefined ? { language } : {}), ...(theme !== undefined ? { theme } : {}) };
    },

    async 'profiles:list'() {
      const builtIn = context.resolveProfile(LOCAL_SANDBOX_ID);
      // On a workspace: the team's profiles (read again), then this desktop's own but one it published (the team's wins).
      const team = (await context.teamProfiles.refresh()).map((definition) => context.resolveProfile(definition.id));
      const teamIds = new Set(team.map((profile) => profile.id));
      const stored = deps.settings.profiles().filter((profile) => !teamIds.has(profile.id)).map((profile) => ({ ...profile, builtIn: false }));
      return { profiles: await Promise.all([builtIn, ...team, ...stored].map(context.toProfile)), activeId: context.activeProfile().id };
    },

    async 'profiles:save'(input) {
      if (input.id === LOCAL_SANDBOX_ID) throw new HandlerFailure('CONFLICT', 'The local sandbox profile is built in and cannot be changed.');
      if (input.id !== undefined && !deps.settings.profile(input.id)) throw new HandlerFailure('NOT_FOUND', `No profile with id ${input.id}.`);
      checkKeyShapes(input);
      const saved = deps.settings.saveProfile(input);
      deps.emit('profiles:changed', { activeId: context.activeProfile().id });
      return context.toProfile({ ...saved, builtIn: false });
    },

    async 'profiles:delete'({ id }) {
      if (id === LOCAL_SANDBOX_ID) throw new HandlerFailure('CONFLICT', 'The local sandbox profile is built in and cannot be deleted.');
      const profile = deps.settings.profile(id);
      if (!profile) throw new HandlerFailure('NOT_FOUND', `No profile with id ${id}.`);
      deps.settings.deleteProfile(id);
      // Its secrets go too, unless another profile uses the same key.
      const inUse = keysInUse(id);
      for (const publicKey of [profile.paymentPublicKey, profile.payoutPublicKey]) {
        if (publicKey !== '' && !inUse.has(publicKey)) {
          try {
            await deps.vault.deleteSecret(publicKey);
          } catch (error) {
            deps.logger?.warn('could not delete a secret of a deleted profile', { error: error instanceof Error ? error.message : 'unknown' });
          }
        }
      }
      deps.emit('profiles:changed', { activeId: context.activeProfile().id });
      return { deleted: true };
    },

    async 'profiles:activate'({ id }) {
      const profile = context.resolveProfile(id);
      deps.settings.setActiveProfileId(profile.id);
      deps.emit('profiles:changed', { activeId: profile.id });
      return context.toProfile(profile);
    },

    async 'secrets:set'({ profileId, keyType, secret }) {
      if (context.teamProfiles.senderHolds(profileId)) {
        // Never asked for here: the team sender holds this profile's keys (docs/team-sender.md).
        throw new HandlerFailure('CONFLICT', `The keys of this team profile are with the team sender: this desktop never holds its secret keys, and nothing was stored.`, { profileId });
      }
      const publicKey = profileForSecret(profileId, keyType);
      await deps.vault.setSecret(publicKey, secret);
      deps.emit('profiles:changed', { activeId: context.activeProfile().id });
      return { stored: true };
    },

    async 'secrets:has'({ profileId, keyType }) {
      const profile = context.resolveProfile(profileId);
      if (profile.builtIn) return { stored: true };
      const publicKey = keyType === 'payment' ? profile.paymentPublicKey : profile.payoutPublicKey;
      return { stored: publicKey !== '' && (await deps.vault.hasSecret(publicKey)) };
    },

    async 'secrets:delete'({ profileId, keyType }) {
      const publicKey = profileForSecret(profileId, keyType);
      const deleted = await deps.vault.deleteSecret(publicKey);
      deps.emit('profiles:changed', { activeId: context.activeProfile().id });
      return { deleted };
    },

    async 'methods:list'() {
      // The spec shows no listing endpoint: these are the codes it names (both served locally).
      // Its test method exists for sandbox development only: a live profile is not offered it.
      const live = context.activeProfile().environment === 'live';
      return { methods: KNOWN_METHOD_CODES.filter((code) => !live || !SANDBOX_ONLY_METHOD_CODES.includes(code)) };
    },

    async 'balance:get'() {
      const profile = context.activeProfile();
      context.requireAllowed(profile);
      await context.requireSecret(profile, 'payout');
      const result = await context.clientFor(profile).getBalance();
      if (result.kind === 'api-error' && result.code === 'ROUTE_NOT_FOUND') return { available: false, balance: null, currency: '' };
      if (result.kind !== 'success') throw readFailure(result);
      const parsed = balanceSchema.safeParse(result.data);
      if (!parsed.success) throw new HandlerFailure('BAD_RESPONSE', 'The service answered a balance in an unexpected shape.');
      return { available: true, balance: parsed.data.balance, currency: parsed.data.currency };
    },
  };
}
