/**
 * Settings and profiles: one JSON document in the user-data folder, validated when read.
 *
 * The store behind it is injected (`conf` in plain Node, electron-store in Electron, which is a
 * `conf` subclass). A document that is not JSON or fails its schema is moved aside as
 * `settings.json.corrupt-<time>` and the user is told through a notice; the console then starts
 * with defaults rather than guessing which half of a broken file to trust.
 */
import { existsSync, renameSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import Conf from 'conf';
import { DEFAULT_HEADER_WORD, ENVIRONMENTS, HEADER_WORD_PATTERN } from '../../shared/contract';
import { LANGUAGE_PREFERENCES, type LanguagePreference } from '../../shared/i18n/types';
import { LOCAL_SANDBOX_PROFILE_ID, THEME_PREFERENCES, type ProfileInput, type ThemePreference } from '../../shared/api';

/** Where the settings document lives; `read` throws when the stored text is not JSON. */
export interface SettingsBackend {
  /** The file behind the store, for the backup of a corrupt file (null when there is none). */
  readonly path: string | null;
  read(): unknown;
  write(document: SettingsDocument): void;
}

/** A `conf`-like store: electron-store has the same shape. */
export interface ConfLikeStore {
  readonly path: string;
  store: Record<string, unknown>;
}

/**
 * A backend over any `conf`-like store. The store is created lazily because `conf` throws in its
 * constructor on a file that is not JSON; after the file is moved aside a fresh one is created.
 */
export function storeBackend(createStore: () => ConfLikeStore, path: string): SettingsBackend {
  let store: ConfLikeStore | null = null;
  return {
    path,
    read() {
      store ??= createStore();
      return store.store;
    },
    write(document) {
      store ??= createStore();
      store.store = document as unknown as Record<string, unknown>;
    },
  };
}

/** The default backend in plain Node: `conf` with `<userDataDir>/settings.json`. */
export function confSettingsBackend(userDataDir: string): SettingsBackend {
  return storeBackend(
    () => new Conf<Record<string, unknown>>({ cwd: userDataDir, configName: 'settings', clearInvalidConfig: false }),
    `${userDataDir}/settings.json`,
  );
}

export const LOCAL_SANDBOX_ID = LOCAL_SANDBOX_PROFILE_ID;

const storedProfileSchema = z.strictObject({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(80),
  baseUrl: z.url({ protocol: /^https?$/ }).max(500),
  environment: z.enum(ENVIRONMENTS),
  headerWord: z.string().regex(HEADER_WORD_PATTERN),
  paymentPublicKey: z.string().max(200),
  payoutPublicKey: z.string().max(200),
});
export type StoredProfile = z.infer<typeof storedProfileSchema>;

const teamKeysSchema = z.strictObject({ paymentPublicKey: z.string().max(200), payoutPublicKey: z.string().max(200) });
/** The public keys this desktop uses with one team profile. */
export type TeamKeys = z.infer<typeof teamKeysSchema>;

const teamProfileSeenSchema = z.strictObject({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(80),
  environment: z.enum(ENVIRONMENTS),
  baseUrl: z.string().min(1).max(500),
  payoutPublicKey: z.string().max(200),
});
/**
 * What this desktop keeps of a team profile once read from the workspace, so that the team's
 * policy still binds it after "This desktop only" (docs/decisions/leaving-keeps-the-policy.md):
 * where it sends and with which public key, never a secret.
 */
export type TeamProfileSeen = z.infer<typeof teamProfileSeenSchema>;

const settingsDocumentSchema = z.strictObject({
  version: z.literal(1),
  activeProfileId: z.string().min(1).max(200),
  profiles: z.array(storedProfileSchema).max(1000),
  /** Absent in files written before languages existed: the system's language. */
  language: z.enum(LANGUAGE_PREFERENCES).optional(),
  /** Absent in files written before themes existed: the system's light or dark mode. */
  theme: z.enum(THEME_PREFERENCES).optional(),
  /**
   * This desktop's public keys for each team profile it uses (a workspace's profiles, by id;
   * docs/decisions/team-profiles.md). Public keys name the keychain entries holding the secrets;
   * the definitions themselves are the workspace's, and no secret is ever written here.
   */
  teamKeys: z.record(z.string().min(1).max(200), teamKeysSchema).optional(),
  /** The team profiles as last read from a workspace (absent before issue 36): kept while this desktop records on its own. */
  teamProfilesSeen: z.array(teamProfileSeenSchema).max(1000).optional(),
});
export type SettingsDocument = z.infer<typeof settingsDocumentSchema>;

const DEFAULT_DOCUMENT: SettingsDocument = { version: 1, activeProfileId: LOCAL_SANDBOX_ID, profiles: [] };

export interface SettingsNotice {
  code: 'SETTINGS_CORRUPT';
  message: string;
  backupPath: string | null;
}

export interface Settings {
  profiles(): StoredProfile[];
  profile(id: string): StoredProfile | null;
  activeProfileId(): string;
  setActiveProfileId(id: string): void;
  saveProfile(input: ProfileInput): StoredProfile;
  deleteProfile(id: string): boolean;
  /** This desktop's public keys for a team profile (null: none given yet). */
  teamKeys(profileId: string): TeamKeys | null;
  setTeamKeys(profileId: string, keys: TeamKeys): void;
  /** The team profiles as last read from a workspace, with this desktop's payout public key for each. */
  teamProfilesSeen(): TeamProfileSeen[];
  setTeamProfilesSeen(seen: TeamProfileSeen[]): void;
  language(): LanguagePreference;
  setLanguage(language: LanguagePreference): void;
  theme(): ThemePreference;
  setTheme(theme: ThemePreference): void;
  /** Notices for the user about the settings file (e.g. a corrupt file moved aside). */
  notices(): SettingsNotice[];
}

export function createSettings(backend: SettingsBackend, now: () => number = Date.now): Settings {
  const notices: SettingsNotice[] = [];
  let document = load();

  function load(): SettingsDocument {
    let raw: unknown;
    try {
      raw = backend.read();
    } catch (error) {
      return setAside(`the file is not valid JSON (${error instanceof Error ? error.message.slice(0, 120) : 'unreadable'})`);
    }
    if (raw === undefined || raw === null || (typeof raw === 'object' && Object.keys(raw).length === 0)) {
      return structuredClone(DEFAULT_DOCUMENT);
    }
    const parsed = settingsDocumentSchema.safeParse(raw);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      const where = first ? `${first.path.join('.') || 'document'}: ${first.message}` : 'invalid';
      return setAside(`the content is not valid (${where})`);
    }
    return parsed.data;
  }

  function setAside(reason: string): SettingsDocument {
    let backupPath: string | null = null;
    if (backend.path && existsSync(backend.path)) {
      backupPath = `${backend.path}.corrupt-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`;
      renameSync(backend.path, backupPath);
    }
    notices.push({
      code: 'SETTINGS_CORRUPT',
      message:
        `The settings file could not be read: ${reason}. ` +
        (backupPath ? `It was kept aside as ${backupPath}; ` : '') +
        'Paydesk started with default settings (your secret keys are in the OS keychain and were not affected).',
      backupPath,
    });
    const fresh = structuredClone(DEFAULT_DOCUMENT);
    backend.write(fresh);
    return fresh;
  }

  function persist(next: SettingsDocument): void {
    backend.write(next);
    document = next;
  }

  return {
    profiles: () => document.profiles.map((profile) => ({ ...profile })),
    profile: (id) => {
      const found = document.profiles.find((profile) => profile.id === id);
      return found ? { ...found } : null;
    },
    activeProfileId: () => document.activeProfileId,
    setActiveProfileId(id) {
      persist({ ...document, activeProfileId: id });
    },
    saveProfile(input) {
      const profile: StoredProfile = {
        id: input.id ?? randomUUID(),
        name: input.name,
        baseUrl: input.baseUrl,
        environment: input.environment,
        headerWord: input.headerWord || DEFAULT_HEADER_WORD,
        paymentPublicKey: input.paymentPublicKey,
        payoutPublicKey: input.payoutPublicKey,
      };
      const others = document.profiles.filter((existing) => existing.id !== profile.id);
      const index = document.profiles.findIndex((existing) => existing.id === profile.id);
      const profiles = index === -1 ? [...others, profile] : document.profiles.map((p) => (p.id === profile.id ? profile : p));
      persist({ ...document, profiles });
      return { ...profile };
    },
    deleteProfile(id) {
      if (!document.profiles.some((profile) => profile.id === id)) return false;
      const profiles = document.profiles.filter((profile) => profile.id !== id);
      const activeProfileId = document.activeProfileId === id ? LOCAL_SANDBOX_ID : document.activeProfileId;
      persist({ ...document, profiles, activeProfileId });
      return true;
    },
    teamKeys: (profileId) => {
      const keys = document.teamKeys?.[profileId];
      return keys ? { ...keys } : null;
    },
    setTeamKeys(profileId, keys) {
      persist({ ...document, teamKeys: { ...document.teamKeys, [profileId]: { paymentPublicKey: keys.paymentPublicKey, payoutPublicKey: keys.payoutPublicKey } } });
    },
    teamProfilesSeen: () => (document.teamProfilesSeen ?? []).map((seen) => ({ ...seen })),
    setTeamProfilesSeen(seen) {
      persist({ ...document, teamProfilesSeen: seen.map(({ id, name, environment, baseUrl, payoutPublicKey }) => ({ id, name, environment, baseUrl, payoutPublicKey })) });
    },
    language: () => document.language ?? 'system',
    setLanguage(language) {
      persist({ ...document, language });
    },
    theme: () => document.theme ?? 'system',
    setTheme(theme) {
      persist({ ...document, theme });
    },
    notices: () => [...notices],
  };
}
