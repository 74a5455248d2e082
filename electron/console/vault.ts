/**
 * The keychain vault: secret keys live in the OS keychain only.
 *
 * One entry per secret key, service `Paydesk`, account = the public key. Handlers get
 * `setSecret`/`hasSecret`/`deleteSecret`; only the HTTP client's `secretFor` gets `useSecret`.
 * There is no plain-text fallback: without a keychain every call fails with NO_KEYCHAIN; a
 * keychain that does not answer in time fails with KEYCHAIN_UNRESPONSIVE. Secrets read are kept
 * in main's memory only (createVault says when they are forgotten).
 */
import { KeychainUnresponsive, workerKeychain, type KeychainCalls } from './keychain-worker';

export const KEYCHAIN_SERVICE = 'Paydesk';

/** A keyring in process, synchronous (injectable so unit tests can run without the OS keychain). */
export interface KeyringEntry {
  getPassword(): string | null;
  setPassword(password: string): void;
  deletePassword(): boolean;
}
export type KeyringBackend = (service: string, account: string) => KeyringEntry;

/** A failure the handlers turn into `{ ok: false, error: { code, message } }`. */
export class VaultError extends Error {
  constructor(
    readonly code: 'NO_KEYCHAIN' | 'KEYCHAIN_UNRESPONSIVE' | 'SECRET_MISSING',
    message: string,
    /** For NO_KEYCHAIN: the cause, for logs (the library's own text is never kept). */
    readonly problem: KeychainProblem | null = null,
  ) {
    super(message);
    this.name = 'VaultError';
  }
}

export interface Vault {
  setSecret(publicKey: string, secret: string): Promise<void>;
  hasSecret(publicKey: string): Promise<boolean>;
  deleteSecret(publicKey: string): Promise<boolean>;
  /** For the HTTP client's signer only: the secret key for a public key. */
  useSecret(publicKey: string): Promise<string>;
  /** Forgets the kept secrets and stops the keychain's worker (the runtime's close). */
  close(): void;
}

/** What to tell the user when the keychain cannot be used, per platform. */
export function noKeychainMessage(platform: NodeJS.Platform = process.platform): string {
  switch (platform) {
    case 'darwin':
      return 'The macOS Keychain is not available: unlock your login keychain (Keychain Access) and try again. Paydesk never stores secret keys in plain text.';
    case 'win32':
      return 'The Windows Credential Manager is not available: make sure the Credential Manager service is running. Paydesk never stores secret keys in plain text.';
    default:
      return (
        'No OS keychain is available: Paydesk keeps secret keys in the Secret Service. Install and start gnome-keyring ' +
        '(or KWallet with its Secret Service support), make sure a D-Bus session is running, and unlock the keyring ' +
        '(a default "login" keyring must exist and be unlocked). Paydesk never stores secret keys in plain text.'
      );
  }
}

/** Why the keychain could not be used, read from the keyring library's failure. */
export type KeychainProblem = 'no-session-bus' | 'no-secret-service' | 'locked' | 'no-default-keyring' | 'unknown';

/**
 * The library's failure text (D-Bus, X11 and Secret Service jargon) sorted into a cause the user
 * can act on. The text itself never reaches the user: it names sockets and environment variables.
 */
export function keychainProblemOf(detail: string): KeychainProblem {
  if (/failed to connect to socket|x11|autolaunch|DBUS_SESSION_BUS_ADDRESS|no such file or directory|connection refused|session bus/i.test(detail)) return 'no-session-bus';
  if (/ServiceUnknown|not provided by any \.service|name has no owner|org\.freedesktop\.secrets was not/i.test(detail)) return 'no-secret-service';
  if (/locked|unlock|prompt|dismissed/i.test(detail)) return 'locked';
  if (/collection|no default|NoSuchObject|does not exist at path|alias/i.test(detail)) return 'no-default-keyring';
  return 'unknown';
}

const PLAIN_TEXT = 'Paydesk never stores secret keys in plain text.';

/** What to do about a keychain problem on Linux, in words. */
export function linuxKeychainAdvice(problem: KeychainProblem): string {
  switch (problem) {
    case 'no-session-bus':
      return (
        'Paydesk could not reach the keychain because no desktop session bus (D-Bus) is running. Log in to a desktop session, ' +
        'or start Paydesk with "dbus-run-session", with gnome-keyring (or KWallet) running and unlocked. ' + PLAIN_TEXT
      );
    case 'no-secret-service':
      return (
        'No keychain service is running. Install gnome-keyring (on Debian or Ubuntu: sudo apt install gnome-keyring), or KWallet with ' +
        'its Secret Service support, start it, unlock it, and try again. ' + PLAIN_TEXT
      );
    case 'locked':
      return 'The keychain (gnome-keyring or KWallet) is locked. Unlock it (in Passwords and Keys, or by logging in again), then try again. ' + PLAIN_TEXT;
    case 'no-default-keyring':
      return (
        'The keychain has no default keyring. Create one named "login" in Passwords and Keys (Seahorse) with gnome-keyring, unlock it, ' +
        'and try again. ' + PLAIN_TEXT
      );
    case 'unknown':
      return noKeychainMessage('linux');
    default: {
      const never: never = problem;
      return never;
    }
  }
}

/**
 * Keyring errors that mean "no usable keychain" rather than "this entry is broken": no D-Bus
 * session, no Secret Service, no default collection, a locked keyring, access denied. A keychain
 * that does not answer in time says so (KEYCHAIN_UNRESPONSIVE).
 */
function keychainUnavailable(error: unknown): VaultError {
  if (error instanceof KeychainUnresponsive) return new VaultError('KEYCHAIN_UNRESPONSIVE', keychainUnresponsiveMessage(error.timeoutMs));
  const detail = error instanceof Error ? error.message : '';
  // D-Bus's own reply timeout (the Secret Service stopped or crashed mid-call): the same "did not answer", not a locked keychain.
  if (NO_REPLY.test(detail)) return new VaultError('KEYCHAIN_UNRESPONSIVE', keychainUnresponsiveMessage(null));
  const problem = keychainProblemOf(detail);
  const message = process.platform === 'linux' ? linuxKeychainAdvice(problem) : noKeychainMessage();
  return new VaultError('NO_KEYCHAIN', message, problem);
}

/** D-Bus's "no reply" (its text says "blocked", which the problem sorting would read as locked). */
const NO_REPLY = /did not receive a reply|NoReply|timeout was reached/i;

/** What to tell the user when the keychain did not answer in time (`timeoutMs`: ours; null: D-Bus's own). */
export function keychainUnresponsiveMessage(timeoutMs: number | null): string {
  const within = timeoutMs === null ? 'in time' : `within ${Math.max(1, Math.round(timeoutMs / 1000))} s`;
  const which = process.platform === 'darwin' ? 'The macOS Keychain' : process.platform === 'win32' ? 'The Windows Credential Manager' : 'The keychain (gnome-keyring or KWallet)';
  return (
    `${which} did not answer ${within}: nothing was sent. It may have stopped or be waiting for you to unlock it; ` +
    'restart it or log in again, then try again. Secret keys already read keep working. ' + PLAIN_TEXT
  );
}

function checkPublicKey(publicKey: string): void {
  if (publicKey.trim() === '') throw new VaultError('SECRET_MISSING', 'The profile has no public key for this key type.');
}

/** A synchronous keyring (tests' memory keyring) behind the same asynchronous calls as the worker. */
function inProcess(keyring: KeyringBackend): KeychainCalls {
  return {
    getPassword: async (service, account) => keyring(service, account).getPassword(),
    setPassword: async (service, account, password) => keyring(service, account).setPassword(password),
    deletePassword: async (service, account) => keyring(service, account).deletePassword(),
    close: () => undefined,
  };
}

export interface VaultOptions {
  /** The limit on each keychain call (worker only; KEYCHAIN_TIMEOUT_MS by default). */
  timeoutMs?: number;
  /** Told of each call that reaches the keychain (tests count them). */
  onKeychainCall?: (operation: 'get' | 'set' | 'delete') => void;
}

/**
 * The vault. Without `keyring`, the OS keychain through a worker thread with a time limit
 * (./keychain-worker.ts); with one, that keyring in process (tests).
 *
 * A secret read once is kept in this process's memory, per account, until it is set or deleted
 * through this vault: a batch of 1,000 rows reads the keychain once, and a keychain that stops
 * later does not stop secrets already read. Reads of the same account at once share one call.
 * The kept secrets never leave this object (docs/decisions/keychain-cached-and-off-main-thread.md).
 */
export function createVault(keyring?: KeyringBackend, options: VaultOptions = {}): Vault {
  const calls = keyring ? inProcess(keyring) : workerKeychain({ ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
  const known = new Map<string, string>();
  const reading = new Map<string, Promise<string | null>>();
  /** Bumped by every set or delete: a read that began before one is not kept. */
  let generation = 0;

  async function keychain<T>(operation: 'get' | 'set' | 'delete', run: () => Promise<T>): Promise<T> {
    options.onKeychainCall?.(operation);
    try {
      return await run();
    } catch (error) {
      throw keychainUnavailable(error);
    }
  }

  function readSecret(publicKey: string): Promise<string | null> {
    checkPublicKey(publicKey);
    const kept = known.get(publicKey);
    if (kept !== undefined) return Promise.resolve(kept);
    const inFlight = reading.get(publicKey);
    if (inFlight) return inFlight;
    const startedAt = generation;
    const read = keychain('get', () => calls.getPassword(KEYCHAIN_SERVICE, publicKey))
      .then((secret) => {
        if (secret !== null && startedAt === generation) known.set(publicKey, secret);
        return secret;
      })
      .finally(() => {
        if (reading.get(publicKey) === read) reading.delete(publicKey);
      });
    reading.set(publicKey, read);
    return read;
  }

  function forget(publicKey: string): void {
    generation += 1;
    known.delete(publicKey);
    reading.delete(publicKey);
  }

  return {
    async setSecret(publicKey, secret) {
      checkPublicKey(publicKey);
      forget(publicKey);
      await keychain('set', () => calls.setPassword(KEYCHAIN_SERVICE, publicKey, secret));
      known.set(publicKey, secret);
    },
    async hasSecret(publicKey) {
      if (publicKey.trim() === '') return false;
      return (await readSecret(publicKey)) !== null;
    },
    async deleteSecret(publicKey) {
      if (publicKey.trim() === '') return false;
      forget(publicKey);
      return keychain('delete', () => calls.deletePassword(KEYCHAIN_SERVICE, publicKey));
    },
    async useSecret(publicKey) {
      const secret = await readSecret(publicKey);
      if (secret === null) {
        throw new VaultError('SECRET_MISSING', `No secret key is stored in the keychain for ${publicKey}: add it in the profile's settings.`);
      }
      return secret;
    },
    close() {
      known.clear();
      reading.clear();
      calls.close();
    },
  };
}

/**
 * Issue 38: a team profile moved to the team sender has its keys with the sender alone. At each
 * start this desktop deletes the secret keys it stored for such a profile (by its public keys; a
 * public key another profile of this desktop still uses is kept, its secret being that one's too).
 * Nothing is read from the keychain; the log names the profile and which key, never a secret.
 * Returns how many secrets were removed.
 */
export async function removeKeysHeldBySender(
  vault: Pick<Vault, 'deleteSecret'>,
  moved: readonly { profileId: string; paymentPublicKey: string; payoutPublicKey: string }[],
  stillUsed: ReadonlySet<string>,
  logger: { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void },
): Promise<number> {
  let removed = 0;
  for (const profile of moved) {
    for (const [keyType, publicKey] of [['payment', profile.paymentPublicKey], ['payout', profile.payoutPublicKey]] as const) {
      if (publicKey.trim() === '' || stillUsed.has(publicKey)) continue;
      try {
        if (await vault.deleteSecret(publicKey)) {
          removed += 1;
          logger.info('removed a secret key of a team profile now held by the team sender', { profileId: profile.profileId, keyType, publicKey });
        }
      } catch (error) {
        logger.warn('could not remove a secret key of a team profile now held by the team sender', { profileId: profile.profileId, keyType, error: error instanceof Error ? error.name : 'unknown' });
      }
    }
  }
  return removed;
}
