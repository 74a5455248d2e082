/**
 * The team sender's own key store (docs/decisions/team-sender-holds-the-keys.md): one JSON file,
 * readable by the sender's user alone (mode 0600: a file any other user could read is refused),
 * outside the workspace's database. Read once at start; the secrets stay in this process's memory,
 * behind the same keyring interface the console's signer reads (service `Paydesk`, account = the
 * public key), and are never logged, printed or written anywhere.
 *
 *     { "profiles": { "team-sandbox": { "paymentPublicKey": "…", "paymentSecretKey": "…",
 *                                       "payoutPublicKey": "…", "payoutSecretKey": "…" } } }
 */
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import type { KeyringBackend } from '../console/vault';

const key = z.string().min(8).max(200).regex(/^[A-Za-z0-9_.:-]+$/, 'a key is letters, digits and _ . : -');
const profileKeysSchema = z.strictObject({ paymentPublicKey: key, paymentSecretKey: key, payoutPublicKey: key, payoutSecretKey: key });
const keysFileSchema = z.strictObject({ profiles: z.record(z.string().min(1).max(200), profileKeysSchema) });

export type SenderProfileKeys = z.infer<typeof profileKeysSchema>;

export interface SenderKeys {
  /** The team profiles this sender holds keys for. */
  profileIds: string[];
  /** A profile's public keys (they name the secrets; never the secrets themselves). */
  publicKeysOf(profileId: string): { paymentPublicKey: string; payoutPublicKey: string } | null;
  /** The signer's keyring: the secrets by public key, in memory; a write is refused (the file is the store). */
  keyring: KeyringBackend;
}

export class KeysFileError extends Error {
  override name = 'KeysFileError';
}

/** Reads and checks the keys file; throws KeysFileError with a sentence that never quotes a secret. */
export function readKeysFile(path: string, platform: NodeJS.Platform = process.platform): SenderKeys {
  return senderKeysOf(readKeysFileProfiles(path, platform));
}

/** The keys file's profiles and their key pairs, checked as readKeysFile says. */
export function readKeysFileProfiles(path: string, platform: NodeJS.Platform = process.platform): Record<string, SenderProfileKeys> {
  return readPrivateJson(path, `the keys file ${path}`, keysFileSchema, (message) => new KeysFileError(message), platform).profiles;
}

/**
 * A JSON file of secrets that only its owner may read (mode 0600 or stricter), parsed and checked
 * against `schema`: the sender's keys file, and the team sandbox's own (./team-sandbox.ts). Each
 * refusal names the file (`label`) and what is wrong, never a value (they may be secrets).
 */
export function readPrivateJson<T>(path: string, label: string, schema: z.ZodType<T>, fail: (message: string) => Error, platform: NodeJS.Platform = process.platform): T {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (error) {
    throw fail(`${label} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}`);
  }
  if (platform !== 'win32' && (mode & 0o077) !== 0) {
    throw fail(`${label} can be read by other users (mode ${(mode & 0o777).toString(8)}): run chmod 600 ${path}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw fail(`${label} is not JSON`);
  }
  const checked = schema.safeParse(parsed);
  if (!checked.success) {
    const where = checked.error.issues.map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`).join('; ');
    throw fail(`${label} is not as expected (${where})`);
  }
  return checked.data;
}

/**
 * The sender's keys from its profiles' key pairs (the keys file's, and the team sandbox's own:
 * ./team-sandbox.ts), behind the keyring interface the console's signer reads.
 */
export function senderKeysOf(profiles: Record<string, SenderProfileKeys>): SenderKeys {
  const secrets = new Map<string, string>();
  for (const keys of Object.values(profiles)) {
    secrets.set(keys.paymentPublicKey, keys.paymentSecretKey);
    secrets.set(keys.payoutPublicKey, keys.payoutSecretKey);
  }
  const keyring: KeyringBackend = (_service, account) => ({
    getPassword: () => secrets.get(account) ?? null,
    setPassword: () => {
      throw new KeysFileError('the team sender\'s keys are changed in its keys file, then the sender is started again');
    },
    deletePassword: () => false,
  });
  return {
    profileIds: Object.keys(profiles),
    publicKeysOf(profileId) {
      const keys = profiles[profileId];
      return keys ? { paymentPublicKey: keys.paymentPublicKey, payoutPublicKey: keys.payoutPublicKey } : null;
    },
    keyring,
  };
}
