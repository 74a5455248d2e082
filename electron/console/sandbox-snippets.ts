/**
 * Signed examples for the local sandbox (the Sandbox panel's sign helper and the inspector's
 * "reproduce"): the four headers and canonical string for now, plus curl, Node and PHP snippets
 * that compute a fresh timestamp and signature when run, since a signature is valid for ±300 s.
 * Only the loopback engine's fixture keys are used here, never a key from the keychain.
 */
import { authHeaderNames, type KeyType } from '../../shared/contract';
import { english } from '../../shared/i18n';
import type { SignedExample } from '../../shared/api';
import { canonicalString, payloadFor, signParts } from '@paydesk/sandbox';

export interface ExampleInput {
  baseUrl: string;
  method: 'GET' | 'POST';
  path: string;
  query: string;
  body: string;
  keyType: KeyType;
  publicKey: string;
  /** The fixture secret of the local sandbox. */
  secretKey: string;
  /** Real time in seconds (the engine checks the timestamp window against it, not its advanced clock). */
  nowSeconds: number;
  headerWord?: string;
  /** The snippets' comments, in the console's language. */
  words?: SnippetWords;
}

export type SnippetWords = { readonly [K in keyof (typeof english)['inspector']['snippet']]: string };

/**
 * The body's `"external_id": "…"`, which each run of a snippet replaces with a fresh one: the
 * service accepts an external id once, so a second run of the same body would be a duplicate.
 * The rest of the body is sent byte for byte (and signed as sent).
 */
const EXTERNAL_ID_PATTERN = /"external_id"\s*:\s*"(?:[^"\\]|\\.)*"/;

function hasExternalId(input: ExampleInput): boolean {
  return input.method === 'POST' && EXTERNAL_ID_PATTERN.test(input.body);
}

/** A bash single-quoted string. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A PHP single-quoted string. */
function phpQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function curlSnippet(input: ExampleInput, names: ReturnType<typeof authHeaderNames>, target: string, words: SnippetWords): string {
  const isGet = input.method === 'GET';
  const lines = [
    `PK=${shellQuote(input.publicKey)}`,
    `SK=${shellQuote(input.secretKey)}  # ${words.fixtureSecret}`,
    `URL_PATH=${shellQuote(input.path)}`,
    isGet ? `QUERY=${shellQuote(input.query)}` : `BODY=${shellQuote(input.body)}`,
    ...(hasExternalId(input)
      ? [`EXT="ex-$(date +%s)-$RANDOM"  # ${words.freshExternalId}`, `BODY=$(printf '%s' "$BODY" | sed -E 's/"external_id"[[:space:]]*:[[:space:]]*"[^"]*"/"external_id":"'"$EXT"'"/')`]
      : []),
    'TS=$(date +%s)',
    `SIG=$(printf '%s' "$PK.$TS.${input.method}.$URL_PATH.${isGet ? '$QUERY' : '$BODY'}" | openssl dgst -sha256 -hmac "$SK" | sed 's/^.* //')`,
    [
      `curl -sS -X ${input.method} ${shellQuote(target)}`,
      `-H "${names.authorization}: $PK"`,
      `-H "${names.timestamp}: $TS"`,
      `-H "${names.signature}: $SIG"`,
      `-H '${names.environment}: sandbox'`,
      ...(isGet ? [] : [`-H 'Content-Type: application/json'`, `--data-binary "$BODY"`]),
    ].join(' \\\n  '),
  ];
  return lines.join('\n');
}

function nodeSnippet(input: ExampleInput, names: ReturnType<typeof authHeaderNames>, words: SnippetWords): string {
  const isGet = input.method === 'GET';
  const q = JSON.stringify;
  return [
    "import { createHmac } from 'node:crypto';",
    '',
    `const publicKey = ${q(input.publicKey)};`,
    `const secretKey = ${q(input.secretKey)}; // ${words.fixtureSecret}`,
    `const method = ${q(input.method)};`,
    `const path = ${q(input.path)};`,
    `const query = ${q(input.query)}; // ${words.queryExact}`,
    `${hasExternalId(input) ? 'let' : 'const'} body = ${q(input.body)}; // ${words.bodyExactNode}`,
    ...(hasExternalId(input)
      ? [`body = body.replace(${EXTERNAL_ID_PATTERN.toString()}, \`"external_id":"ex-\${Date.now().toString(36)}-\${Math.random().toString(36).slice(2, 8)}"\`); // ${words.freshExternalId}`]
      : []),
    'const timestamp = String(Math.floor(Date.now() / 1000));',
    `const payload = ${isGet ? 'query' : 'body'};`,
    "const signature = createHmac('sha256', secretKey).update(`${publicKey}.${timestamp}.${method}.${path}.${payload}`).digest('hex');",
    '',
    `const response = await fetch(${q(input.baseUrl)} + path + (query ? \`?\${query}\` : ''), {`,
    '  method,',
    '  headers: {',
    `    ${q(names.authorization)}: publicKey,`,
    `    ${q(names.timestamp)}: timestamp,`,
    `    ${q(names.signature)}: signature,`,
    `    ${q(names.environment)}: 'sandbox',`,
    ...(isGet ? [] : ["    'Content-Type': 'application/json',"]),
    '  },',
    ...(isGet ? [] : ['  body,']),
    '});',
    'console.log(response.status, await response.json());',
  ].join('\n');
}

function phpSnippet(input: ExampleInput, names: ReturnType<typeof authHeaderNames>, words: SnippetWords): string {
  const isGet = input.method === 'GET';
  return [
    '<?php',
    `$publicKey = ${phpQuote(input.publicKey)};`,
    `$secretKey = ${phpQuote(input.secretKey)}; // ${words.fixtureSecret}`,
    `$method = ${phpQuote(input.method)};`,
    `$path = ${phpQuote(input.path)};`,
    `$query = ${phpQuote(input.query)}; // ${words.queryExact}`,
    `$body = ${phpQuote(input.body)}; // ${words.bodyExactPhp}`,
    ...(hasExternalId(input)
      ? [`$body = preg_replace('/"external_id"\\s*:\\s*"(?:[^"\\\\\\\\]|\\\\\\\\.)*"/', '"external_id":"ex-' . time() . '-' . bin2hex(random_bytes(3)) . '"', $body, 1); // ${words.freshExternalId}`]
      : []),
    '$timestamp = (string) time();',
    `$payload = ${isGet ? '$query' : '$body'};`,
    "$signature = hash_hmac('sha256', $publicKey . '.' . $timestamp . '.' . $method . '.' . $path . '.' . $payload, $secretKey);",
    '',
    `$ch = curl_init(${phpQuote(input.baseUrl)} . $path . ($query !== '' ? '?' . $query : ''));`,
    'curl_setopt_array($ch, [',
    '    CURLOPT_CUSTOMREQUEST => $method,',
    '    CURLOPT_RETURNTRANSFER => true,',
    '    CURLOPT_HTTPHEADER => [',
    `        '${names.authorization}: ' . $publicKey,`,
    `        '${names.timestamp}: ' . $timestamp,`,
    `        '${names.signature}: ' . $signature,`,
    `        '${names.environment}: sandbox',`,
    ...(isGet ? [] : ["        'Content-Type: application/json',"]),
    '    ],',
    ...(isGet ? [] : ['    CURLOPT_POSTFIELDS => $body,']),
    ']);',
    'echo curl_exec($ch), PHP_EOL;',
  ].join('\n');
}

export function signedExample(input: ExampleInput): SignedExample {
  const names = authHeaderNames(input.headerWord);
  const timestamp = String(input.nowSeconds);
  const payload = payloadFor(input.method, input.query, input.body);
  const parts = { publicKey: input.publicKey, timestamp, method: input.method, path: input.path, payload };
  const signature = signParts(input.secretKey, parts);
  const target = `${input.baseUrl}${input.path}${input.query === '' ? '' : `?${input.query}`}`;
  const words = input.words ?? english.inspector.snippet;
  return {
    url: target,
    method: input.method,
    keyType: input.keyType,
    publicKey: input.publicKey,
    timestamp,
    headers: [
      { name: names.authorization, value: input.publicKey },
      { name: names.timestamp, value: timestamp },
      { name: names.signature, value: signature },
      { name: names.environment, value: 'sandbox' },
      ...(input.method === 'POST' ? [{ name: 'Content-Type', value: 'application/json' }] : []),
    ],
    canonical: canonicalString(parts),
    snippets: {
      curl: curlSnippet(input, names, target, words),
      node: nodeSnippet(input, names, words),
      php: phpSnippet(input, names, words),
    },
  };
}
