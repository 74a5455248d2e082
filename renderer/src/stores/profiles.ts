/**
 * Profiles store: the saved connections, the active one, and what depends on it (methods,
 * balance). State changes only through these actions; `profiles:changed` makes it load again.
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, ChannelInput, ChannelResults, PaydeskApi, Profile, ProfileInput, Result, ThemePreference } from '../../../shared/api';
import type { KeyType } from '../../../shared/contract';
import type { LanguagePreference } from '../../../shared/i18n';

type Balance = ChannelResults['balance:get'];
type TeamProfileChannel = 'teamProfiles:save' | 'teamProfiles:delete' | 'teamProfiles:publish' | 'teamProfiles:setKeys';

export interface ProfilesState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: ApiFailure | null;
  profiles: Profile[];
  activeId: string | null;
  info: ChannelResults['app:info'] | null;
  methods: string[];
  methodsError: ApiFailure | null;
  balance: Balance | null;
  balanceError: ApiFailure | null;
  /**
   * Reads the profiles and app:info. `reuseStarted`: a load already started (main.tsx asks at
   * start, before React has drawn anything) is taken instead of asking again.
   */
  load(options?: { reuseStarted?: boolean }): Promise<void>;
  loadMethods(): Promise<void>;
  /**
   * Reads the wallet balance (GET /v1/balance, which the service's rate limit counts). A read in
   * flight is shared; `maxAgeMs`: a balance of the same profile read that recently is kept (a
   * screen opening right after the console started reads nothing again).
   */
  loadBalance(options?: { maxAgeMs?: number }): Promise<void>;
  save(input: ProfileInput): Promise<Result<Profile>>;
  remove(id: string): Promise<Result<{ deleted: true }>>;
  activate(id: string): Promise<Result<Profile>>;
  setSecret(profileId: string, keyType: KeyType, secret: string): Promise<Result<{ stored: true }>>;
  deleteSecret(profileId: string, keyType: KeyType): Promise<Result<{ deleted: boolean }>>;
  /** A team profile action on a team workspace (save, delete, publish, this desktop's keys); the list is read again. */
  team<C extends TeamProfileChannel>(channel: C, input: ChannelInput<C>): Promise<Result<ChannelResults[C]>>;
  /** Remembers the language in main's settings; the window follows `info.language`. */
  setLanguage(language: LanguagePreference): Promise<Result<ChannelResults['preferences:set']>>;
  /** Remembers the colour theme in main's settings; the window follows `info.theme`. */
  setTheme(theme: ThemePreference): Promise<Result<ChannelResults['preferences:set']>>;
}

export function activeProfile(state: Pick<ProfilesState, 'profiles' | 'activeId'>): Profile | null {
  return state.profiles.find((profile) => profile.id === state.activeId) ?? null;
}

/**
 * Whether a profile's keys are with the team sender: the sender alone reads the service for its
 * entries and its writes show live, so no desktop offers Verify or Look up on them
 * (docs/decisions/sender-records-its-profiles-answers.md).
 */
export function senderHolds(state: Pick<ProfilesState, 'profiles'>, profileId: string | null | undefined): boolean {
  return profileId != null && state.profiles.some((profile) => profile.id === profileId && profile.keysWithSender === true);
}

/** The active profile is live and this host (the browser host without --allow-live) refuses live. */
export function liveRefused(state: Pick<ProfilesState, 'profiles' | 'activeId' | 'info'>): boolean {
  return activeProfile(state)?.environment === 'live' && state.info?.allowLive === false;
}

/** Whether this host refuses a given profile (live, without --allow-live). */
export function refusesProfile(state: Pick<ProfilesState, 'info'>, profile: Pick<Profile, 'environment'>): boolean {
  return profile.environment === 'live' && state.info?.allowLive === false;
}

/** A balance read this recently counts as fresh for a screen that opens (Overview, New payout). */
export const BALANCE_FRESH_MS = 5000;

export function createProfilesStore(api: PaydeskApi) {
  /** The latest load, settled or not. */
  let started: Promise<void> | null = null;
  let balanceInFlight: Promise<void> | null = null;
  /** When the shown balance was read, and for which profile. */
  let balanceRead: { at: number; profileId: string | null } | null = null;
  return createStore<ProfilesState>()((set, get) => ({
    status: 'idle',
    error: null,
    profiles: [],
    activeId: null,
    info: null,
    methods: [],
    methodsError: null,
    balance: null,
    balanceError: null,
    load(options = {}) {
      if (options.reuseStarted && started) return started;
      started = (async () => {
        if (get().status !== 'ready') set({ status: 'loading' });
        const [list, info] = await Promise.all([api.invoke('profiles:list', {}), api.invoke('app:info', {})]);
        if (!list.ok) {
          // The language and theme still apply (a team workspace not open says so in the person's words).
          set({ status: 'error', error: list.error, ...(info.ok ? { info: info.value } : {}) });
          return;
        }
        const changed = list.value.activeId !== get().activeId;
        set({
          status: 'ready',
          error: null,
          profiles: list.value.profiles,
          activeId: list.value.activeId,
          info: info.ok ? info.value : get().info,
        });
        if (changed) await Promise.all([get().loadMethods(), get().loadBalance()]);
      })();
      return started;
    },
    async loadMethods() {
      const result = await api.invoke('methods:list', {});
      set(result.ok ? { methods: result.value.methods, methodsError: null } : { methods: [], methodsError: result.error });
    },
    loadBalance(options = {}) {
      if (balanceInFlight) return balanceInFlight;
      const profileId = get().activeId;
      if (options.maxAgeMs !== undefined && balanceRead && balanceRead.profileId === profileId && Date.now() - balanceRead.at < options.maxAgeMs) return Promise.resolve();
      balanceInFlight = (async () => {
        try {
          const result = await api.invoke('balance:get', {});
          set(result.ok ? { balance: result.value, balanceError: null } : { balance: null, balanceError: result.error });
          balanceRead = result.ok ? { at: Date.now(), profileId } : null;
        } finally {
          balanceInFlight = null;
        }
      })();
      return balanceInFlight;
    },
    async save(input) {
      const result = await api.invoke('profiles:save', input);
      if (result.ok) await get().load();
      return result;
    },
    async remove(id) {
      const result = await api.invoke('profiles:delete', { id });
      if (result.ok) await get().load();
      return result;
    },
    async activate(id) {
      const result = await api.invoke('profiles:activate', { id });
      if (result.ok) await get().load();
      return result;
    },
    async setSecret(profileId, keyType, secret) {
      const result = await api.invoke('secrets:set', { profileId, keyType, secret });
      await get().load();
      return result;
    },
    async deleteSecret(profileId, keyType) {
      const result = await api.invoke('secrets:delete', { profileId, keyType });
      await get().load();
      return result;
    },
    async team(channel, input) {
      const result = await api.invoke(channel, input);
      await get().load();
      return result;
    },
    async setLanguage(language) {
      const result = await api.invoke('preferences:set', { language });
      const info = get().info;
      if (result.ok && info) set({ info: { ...info, language } });
      return result;
    },
    async setTheme(theme) {
      const result = await api.invoke('preferences:set', { theme });
      const info = get().info;
      if (result.ok && info) set({ info: { ...info, theme } });
      return result;
    },
  }));
}
export type ProfilesStore = ReturnType<typeof createProfilesStore>;
