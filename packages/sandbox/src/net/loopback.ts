/**
 * The checks both local HTTP servers share (the browser host and the sandbox engine's control
 * API): a caller on this machine, a Host header naming this server, and a secret compared in
 * constant time. Pure Node, no server framework: each server wires them into its own hooks.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIPv4 } from 'node:net';

/** Strips the IPv4-mapped prefix so `::ffff:127.0.0.1` reads as `127.0.0.1`. */
export function normalizeAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** A socket's remote address on this machine: 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  const normalized = normalizeAddress(address);
  if (normalized === '::1' || normalized === '0:0:0:0:0:0:0:1') return true;
  return isIPv4(normalized) && normalized.startsWith('127.');
}

/** An address to listen on that no other machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The host as written in a URL or a Host header (`[::1]`). */
export function hostLiteral(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The Host header values that name a server listening on `host:port`: its own address and
 * `localhost`, with the port. A DNS-rebinding page arrives with its own name, never one of these.
 */
export function ownHostNames(host: string, port: number): ReadonlySet<string> {
  return new Set([hostLiteral(host), 'localhost'].map((name) => `${name}:${port}`));
}

/**
 * Whether `offered` is the secret. Both sides are hashed first, so the comparison takes the same
 * time whatever the offered value's length or content.
 */
export function secretMatches(expected: string, offered: string | undefined): boolean {
  if (offered === undefined) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(offered).digest();
  return timingSafeEqual(a, b);
}
