/**
 * Standard Webhooks signing: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with
 * the base64-decoded part of the application's `whsec_` secret.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A fresh secret: 24 random bytes, base64, with the `whsec_` prefix receivers' libraries expect. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** `msg_` and 24 random base64url characters: the `webhook-id`, the same on every attempt. */
export function newMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
