/**
 * A password as PostgreSQL stores it (SCRAM-SHA-256, RFC 7677; what libpq's PQencryptPasswordConn
 * and psql's \password send): the workspace's people functions take this verifier, never the
 * password in clear, so no table, log line or pending change ever holds one.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

/** PostgreSQL's own default (scram_iterations). */
const ITERATIONS = 4096;

/** SASLprep's steps that change bytes (RFC 4013), as PostgreSQL and node-postgres apply them before hashing. */
function saslprep(password: string): string {
  // eslint-disable-next-line no-misleading-character-class
  const mappedToNothing = /[\u00AD\u034F\u1806\u180B\u180C\u180D\u200C\u200D\u2060\uFE00-\uFE0F\uFEFF]/g;
  return password.replace(/[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000]/g, ' ').replace(mappedToNothing, '').normalize('NFKC');
}

export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = ITERATIONS): string {
  const salted = pbkdf2Sync(Buffer.from(saslprep(password), 'utf8'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
