/**
 * What every handler group shares: the injected dependencies, the failure type handlers throw
 * inside the table (the table turns it into `{ ok: false }`), profile resolution and clients.
 */
import type { KeyType } from '../../../shared/contract';
import { REQUEST_CURRENCY, type Channel, type ChannelParsedInput, type ChannelResults, type Profile, type PushEvent, type PushEvents, type StartNotice } from '../../../shared/api';
import type { ClientFactory, ClientProfile, Clock, ConsoleClient, FollowUpDuty, Logger, SandboxControl } from '../deps';
import type Database from 'better-sqlite3';
import { LOCAL_SANDBOX_ID, type Settings, type StoredProfile } from '../settings';
import { VaultError, type Vault } from '../vault';
import type { Confirmations } from '../confirmations';
import type { StoragePort } from '../storage/port';
import { teamProfileBook, type TeamProfileBook } from './team-profile-book';

export interface WatchOptions {
  /** First delay before a retrieve, doubled after each attempt up to `maxDelayMs`. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** After this long the watch stops; Verify still asks the provider on demand. */
  limitMs: number;
}

export const DEFAULT_WATCH: WatchOptions = { initialDelayMs: 1000, maxDelayMs: 15_000, limitMs: 10 * 60 * 1000 };

export interface HandlerDeps {
  vault: Vault;
  settings: Settings;
  /** The journal's database (journal/entries.ts: JournalDb), typed here without importing it: that module reaches back to the handlers. */
  journal: Database.Database;
  /**
   * The storage port over that journal (../storage/sqlite-store.ts): the batch runner, a single
   * send, the follow-ups (Look up, Verify, History, a transaction's page), the sweeper, the
   * watcher and the Bulk payouts screens read and write through it; Overview, reconciliation and
   * the CSV export still use the journal's functions (issue 24).
   */
  storage: StoragePort;
  clientFactory: ClientFactory;
  /** The in-process local sandbox, when it runs. */
  engine?: SandboxControl | null;
  clock: Clock;
  emit: <E extends PushEvent>(event: E, payload: PushEvents[E]) => void;
  allowLive: boolean;
  transport: 'electron' | 'browser';
  version: string;
  logger?: Logger;
  watch?: Partial<WatchOptions>;
  /** Aborts running watches and closes clients (the runtime's close). */
  signal?: AbortSignal;
  /** The batch runner's row claims: lease and size, and how often a run on a workspace reads its batch's state (tests shorten them). */
  batchClaims?: { leaseMs?: number; size?: number; watchMs?: number; holder?: string };
  /** Who takes the follow-up rounds among several consoles (the team senders); absent, this console always does. */
  followUpDuty?: FollowUpDuty;
  /** Nobody presses Look up on this console (the team sender): its sweeps look up single sends left unknown in this run too. */
  headless?: boolean;
  /** Open entries read per page of a follow-up round (2,000; tests make it small to cross pages). */
  followUpPage?: number;
  /** Startup notices for the user (e.g. a corrupt settings file moved aside). */
  notices?: () => StartNotice[];
}

// The failure lives in its own module so that the handlers' helpers it needs (team-profile-book.ts) need not import this one.
export { HandlerFailure } from './failure';
import { HandlerFailure } from './failure';

export type HandlerImpl<C extends Channel> = (input: ChannelParsedInput<C>) => Promise<ChannelResults[C]>;
export type HandlerImpls<C extends Channel> = { [K in C]: HandlerImpl<K> };

/** Default currency before the service has answered (the one the service is seen to use). */
export const DEFAULT_CURRENCY = REQUEST_CURRENCY;

/**
 * A profile as the handlers use it: a desktop's own, the built-in local sandbox, or a team
 * profile (the workspace's definition with this desktop's public keys; `team`).
 */
export type ResolvedProfile = StoredProfile & { builtIn: boolean; team?: boolean };

export interface Context {
  deps: HandlerDeps;
  confirmations: Confirmations;
  watch: WatchOptions;
  /**
   * Journal ids with a Verify in flight: a status push it causes is left to the Verify, which
   * records the whole transaction itself (one "verified" event, not a second "status changed").
   */
  verifying: Set<string>;
  resolveProfile(id: string): ResolvedProfile;
  activeProfile(): ResolvedProfile;
  /** The workspace's team profiles as last read (./team-profile-book.ts); none on one desktop's journal. */
  teamProfiles: TeamProfileBook;
  toProfile(stored: ResolvedProfile): Promise<Profile>;
  /** Refuses live profiles when this host was started without allowing them. */
  requireAllowed(profile: StoredProfile & { builtIn?: boolean; team?: boolean }): void;
  /** Fails with SECRET_MISSING before anything is written or sent. */
  requireSecret(profile: ResolvedProfile, keyType: KeyType): Promise<void>;
  clientFor(profile: StoredProfile & { builtIn: boolean }): ConsoleClient;
  requireEngine(): SandboxControl;
}

export function createContext(deps: HandlerDeps, confirmations: Confirmations, watch: WatchOptions): Context {
  const clients = new Map<string, ConsoleClient>();
  deps.signal?.addEventListener('abort', () => {
    for (const client of clients.values()) void Promise.resolve(client.close()).catch(() => undefined);
    clients.clear();
  });

  function builtInProfile(): StoredProfile & { builtIn: boolean } {
    const keys = deps.engine?.keys().filter((key) => key.environment === 'sandbox') ?? [];
    return {
      id: LOCAL_SANDBOX_ID,
      name: 'Local sandbox',
      baseUrl: deps.engine?.url ?? 'http://127.0.0.1/',
      environment: 'sandbox',
      headerWord: 'SVC',
      paymentPublicKey: keys.find((key) => key.type === 'payment')?.publicKey ?? '',
      payoutPublicKey: keys.find((key) => key.type === 'payout')?.publicKey ?? '',
      builtIn: true,
    };
  }

  const teamProfiles = teamProfileBook(deps);

  function resolveProfile(id: string): ResolvedProfile {
    if (id === LOCAL_SANDBOX_ID) return builtInProfile();
    // On a workspace a team profile of this id wins over a desktop's own of the same id (one it published).
    const team = teamProfiles.resolve(id);
    if (team) return team;
    // Off the workspace, a team profile (or this desktop's own of the same id, the one it published) stays the team's.
    teamProfiles.refuseTeamOffWorkspace(id);
    const stored = deps.settings.profile(id);
    if (!stored && teamProfiles.onWorkspace()) {
      // A colleague's entry made with a profile of their desktop only: say so, not just "no profile".
      throw new HandlerFailure('NOT_FOUND', `No profile with id ${id} on this desktop or in the team workspace: it may be a colleague's desktop-only profile; an admin can publish it to the team.`);
    }
    if (!stored) throw new HandlerFailure('NOT_FOUND', `No profile with id ${id}.`);
    return { ...stored, builtIn: false };
  }

  async function hasSecretSafe(publicKey: string): Promise<boolean> {
    try {
      return await deps.vault.hasSecret(publicKey);
    } catch (error) {
      // Listing profiles must work without a keychain (the local sandbox needs none).
      if (error instanceof VaultError) return false;
      throw error;
    }
  }

  function sandboxSecret(publicKey: string): string | null {
    return deps.engine?.keys().find((key) => key.publicKey === publicKey)?.secretKey ?? null;
  }

  return {
    deps,
    confirmations,
    watch,
    verifying: new Set(),
    resolveProfile,
    teamProfiles,
    activeProfile() {
      try {
        return resolveProfile(deps.settings.activeProfileId());
      } catch {
        return builtInProfile();
      }
    },
    async toProfile(stored) {
      const { builtIn } = stored;
      const [hasPaymentSecret, hasPayoutSecret] = builtIn
        ? [stored.paymentPublicKey !== '', stored.payoutPublicKey !== '']
        : teamProfiles.senderHolds(stored.id)
          ? [false, false]
          : await Promise.all([hasSecretSafe(stored.paymentPublicKey), hasSecretSafe(stored.payoutPublicKey)]);
      return {
        id: stored.id,
        name: stored.name,
        baseUrl: stored.baseUrl,
        environment: stored.environment,
        headerWord: stored.headerWord,
        paymentPublicKey: stored.paymentPublicKey,
        payoutPublicKey: stored.payoutPublicKey,
        builtIn,
        ...teamProfiles.scopeOf(stored),
        ...(teamProfiles.senderHolds(stored.id) ? { keysWithSender: true as const } : {}),
        hasPaymentSecret,
        hasPayoutSecret,
      };
    },
    requireAllowed(profile) {
      if (profile.environment === 'live' && !deps.allowLive) {
        throw new HandlerFailure('LIVE_REFUSED', `"${profile.name}" is a live profile, and this console was started without allowing live profiles (--allow-live).`);
      }
      teamProfiles.requireTeamForLive(profile);
    },
    async requireSecret(profile, keyType) {
      const publicKey = keyType === 'payment' ? profile.paymentPublicKey : profile.payoutPublicKey;
      // Every payout and batch send asks for the payout secret first (so do a payout's Look up and
      // Verify): off the workspace, a team profile's payout key stays under the team's policy.
      if (keyType === 'payout') teamProfiles.refuseTeamPayoutKey(profile);
      if (profile.builtIn) {
        if (!deps.engine) throw new HandlerFailure('SANDBOX_UNAVAILABLE', 'The local sandbox engine is not running.');
        return;
      }
      if (profile.team && (publicKey === '' || !(await deps.vault.hasSecret(publicKey)))) throw teamProfiles.keysMissing(profile, keyType);
      if (publicKey === '') throw new HandlerFailure('SECRET_MISSING', `"${profile.name}" has no ${keyType} public key: add it in the profile.`);
      if (!(await deps.vault.hasSecret(publicKey))) {
        throw new HandlerFailure('SECRET_MISSING', `The ${keyType} secret key of "${profile.name}" is not in the keychain: add it in the profile.`);
      }
    },
    clientFor(profile) {
      const clientProfile: ClientProfile = {
        baseUrl: profile.baseUrl,
        environment: profile.environment,
        headerWord: profile.headerWord,
        paymentPublicKey: profile.paymentPublicKey,
        payoutPublicKey: profile.payoutPublicKey,
      };
      const cacheKey = JSON.stringify({ builtIn: profile.builtIn, ...clientProfile });
      let client = clients.get(cacheKey);
      if (!client) {
        const secretFor = async (publicKey: string) => {
          if (profile.builtIn) {
            const secret = sandboxSecret(publicKey);
            if (secret === null) throw new VaultError('SECRET_MISSING', `The local sandbox has no key ${publicKey}.`);
            return secret;
          }
          return deps.vault.useSecret(publicKey);
        };
        client = deps.clientFactory(clientProfile, secretFor);
        clients.set(cacheKey, client);
      }
      return client;
    },
    requireEngine() {
      if (!deps.engine) throw new HandlerFailure('SANDBOX_UNAVAILABLE', 'The local sandbox engine is not running in this console.');
      return deps.engine;
    },
  };
}
