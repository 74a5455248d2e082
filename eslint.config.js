// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Node built-ins, with and without the `node:` prefix, for the layer rule below. */
const NODE_BUILTINS = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises',
  'http', 'http2', 'https', 'module', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream',
  'timers', 'tls', 'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib',
];

/**
 * One layer rule: the rooms of electron/ (README "Layout") and what each may not import. Import
 * strings are matched as written (relative paths included), so a pattern names the folder.
 */
function forbid(...rules) {
  return {
    'no-restricted-imports': [
      'error',
      { patterns: rules.map(([group, message]) => ({ group, message })) },
    ],
  };
}

const ENGINE_INTERNALS = [['**/packages/**', '@paydesk/sandbox/*'], "The console reaches the engine only through its public entry: import from '@paydesk/sandbox'."];
const NO_SHELL = [['**/shell', '**/shell/**'], 'shell/ is the Electron main process: nothing else imports it.'];

export default tseslint.config(
  { ignores: ['dist/**', 'packages/*/dist/**', 'release/**', 'node_modules/**', '.electron-native/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
    },
  },
  {
    // Layer rule: shared/ runs in both processes, so it imports nothing from Node, Electron or the DOM.
    files: ['shared/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'shared/ runs in both processes: no Electron.' },
            ...NODE_BUILTINS.flatMap((name) => [
              { name, message: 'shared/ runs in both processes: no Node built-ins.' },
              { name: `node:${name}`, message: 'shared/ runs in both processes: no Node built-ins.' },
            ]),
            { name: 'react', message: 'shared/ holds no UI code.' },
            { name: 'react-dom', message: 'shared/ holds no DOM code.' },
          ],
          patterns: [
            { group: ['node:*'], message: 'shared/ runs in both processes: no Node built-ins.' },
            { group: ['**/electron/**', '**/renderer/**'], message: 'shared/ is the lowest layer: it imports neither electron/ nor renderer/.' },
            { group: ['better-sqlite3', 'undici', 'fastify', 'electron-store', '@napi-rs/*', '@fastify/*', 'pino'], message: 'shared/ runs in both processes: no Node-only packages.' },
            { group: ['react/*', 'react-dom/*'], message: 'shared/ holds no UI or DOM code.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'window', 'document', 'navigator', 'localStorage', 'process', 'Buffer', 'require', '__dirname'],
    },
  },
  {
    // The renderer talks only to the typed API; it never reaches into the main process's code.
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'The renderer talks to main only through the typed API.' }],
          patterns: [
            { group: ['**/electron/**', '../electron', '../../electron'], message: 'renderer/ must not import electron/: use the typed API.' },
            { group: ['node:*', 'better-sqlite3', 'undici', 'fastify', 'electron-store', '@napi-rs/*'], message: 'renderer/ runs in the page: no Node modules.' },
          ],
        },
      ],
    },
  },
  {
    // A package stands on its own (npm run sandbox, npx @paydesk/sandbox, a developer's tests): it knows
    // nothing of the app that embeds it. The dependency runs app -> package only; what both sides need
    // (signing, the logger, loopback checks, the SSE writer) lives in the package, and shared/ (no Node, no
    // DOM) is bundled into it.
    files: ['packages/**/*.{ts,tsx,js,mjs}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'A package runs without Electron.' }],
          patterns: [
            { group: ['**/electron/**', '**/electron'], message: 'A package never imports the app (electron/): move what both need into the package.' },
            { group: ['**/renderer/**', '**/renderer'], message: 'A package never imports renderer/.' },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/console/**/*.ts'],
    rules: forbid(ENGINE_INTERNALS, NO_SHELL, [['**/browser-host', '**/browser-host/**'], 'The console is shared by both transports: it imports neither.']),
  },
  {
    // The browser host runs without Electron.
    files: ['electron/browser-host/**/*.ts'],
    rules: forbid(NO_SHELL, ENGINE_INTERNALS, [['electron'], 'The browser host runs without Electron.']),
  },
  {
    // Neutral pieces both servers and both transports use: they depend on none of them.
    files: ['electron/net/**/*.ts'],
    rules: forbid(
      [['**/console', '**/console/**', '**/shell', '**/shell/**', '**/browser-host', '**/browser-host/**', '**/packages/sandbox/**', '@paydesk/sandbox', '@paydesk/sandbox/*'], 'electron/net/ is shared by the servers and transports: it imports none of them.'],
      [['electron'], 'electron/net/ runs without Electron.'],
    ),
  },
);
