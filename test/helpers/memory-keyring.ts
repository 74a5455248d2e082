/**
 * An in-memory keyring, for unit tests and benches that are not about the keychain itself (the
 * console's vault takes its keyring as an argument; production passes the OS keychain).
 */
import type { KeyringBackend } from '../../electron/console/vault';

export function memoryKeyring(): KeyringBackend & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  const backend = ((service: string, account: string) => {
    const key = `${service}\u0000${account}`;
    return {
      getPassword: () => entries.get(key) ?? null,
      setPassword: (password: string) => void entries.set(key, password),
      deletePassword: () => entries.delete(key),
    };
  }) as KeyringBackend & { entries: Map<string, string> };
  backend.entries = entries;
  return backend;
}
