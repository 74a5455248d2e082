/**
 * The keychain vault: secret keys live in the OS keychain only.
 *
 * One entry per secret key, service `Paydesk`, account = the public key. Handlers get
 * `setSecret`/`hasSecret`/`deleteSecret`; only the HTTP client's `secretFor` gets `useSecret`.
 * There is no plain-text fallback: without a keychain every call fails with NO_KEYCHAIN.
 */
import { Entry } from '@napi-rs/keyring';

export const KEYCHAIN_SERVICE = 'Paydesk';

/** The part of a keyring entry the vault uses (injectable so unit tests can run without one). */
export interface KeyringEntry {
  getPassword(): string | null;
  setPassword(password: string): void;
  deletePassword(): boolean;
}
export type KeyringBackend = (service: string, account: string) => KeyringEntry;

/**
 * The OS keychain. On Linux the store is pinned to the Secret Service: the library's default
 * silently falls back to the kernel's keyutils when no Secret Service answers, which keeps
 * secrets only until logout and would hide the missing keychain from the user.
 */
export const osKeyring: KeyringBackend = (service, account) => new Entry(service, account, { linux: { store: 'secret-service' } });

/** A failure the handlers turn into `{ ok: false, error: { code, message } }`. */
export class VaultError extends Error {
  constructor(
    readonly code: 'NO_KEYCHAIN' | 'SECRET_MISSING',
    message: string,
    /** For NO_KEYCHAIN: the cause, for logs (the library's own text is never kept). */
    readonly problem: KeychainProblem | null = null,
  ) {
    super(message);
    this.name = 'VaultError';
  }
}

export interface Vault {
  setSecret(publicKey: string, secret: string): void;
  hasSecret(publicKey: string): boolean;
  deleteSecret(publicKey: string): boolean;
  /** For the HTTP client's signer only: the secret key for a public key. */
  useSecret(publicKey: string): string;
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
 * session, no Secret Service, no default collection, a locked keyring, access denied.
 */
function keychainUnavailable(error: unknown): VaultError {
  const detail = error instanceof Error ? error.message : '';
  const problem = keychainProblemOf(detail);
  const message = process.platform === 'linux' ? linuxKeychainAdvice(problem) : noKeychainMessage();
  return new VaultError('NO_KEYCHAIN', message, problem);
}

function checkPublicKey(publicKey: string): void {
  if (publicKey.trim() === '') throw new VaultError('SECRET_MISSING', 'The profile has no public key for this key type.');
}

export function createVault(keyring: KeyringBackend = osKeyring): Vault {
  function entryFor(publicKey: string): KeyringEntry {
    checkPublicKey(publicKey);
    try {
      return keyring(KEYCHAIN_SERVICE, publicKey);
    } catch (error) {
      throw keychainUnavailable(error);
    }
  }

  function readSecret(publicKey: string): string | null {
    const entry = entryFor(publicKey);
    try {
      return entry.getPassword();
    } catch (error) {
      throw keychainUnavailable(error);
    }
  }

  return {
    setSecret(publicKey, secret) {
      const entry = entryFor(publicKey);
      try {
        entry.setPassword(secret);
      } catch (error) {
        throw keychainUnavailable(error);
      }
    },
    hasSecret(publicKey) {
      if (publicKey.trim() === '') return false;
      return readSecret(publicKey) !== null;
    },
    deleteSecret(publicKey) {
      if (publicKey.trim() === '') return false;
      const entry = entryFor(publicKey);
      try {
        return entry.deletePassword();
      } catch (error) {
        throw keychainUnavailable(error);
      }
    },
    useSecret(publicKey) {
      const secret = readSecret(publicKey);
      if (secret === null) {
        throw new VaultError('SECRET_MISSING', `No secret key is stored in the keychain for ${publicKey}: add it in the profile's settings.`);
      }
      return secret;
    },
  };
}
