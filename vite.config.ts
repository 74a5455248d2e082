/**
 * One config, three builds into dist/ (what electron-builder.yml packages):
 * - `vite build`: the renderer (renderer/ -> dist/renderer), with relative asset paths so it loads
 *   from the app:// protocol in Electron and from the browser host alike;
 * - `vite build --mode main`: the Electron main process (electron/shell/main.ts -> dist/main, ESM),
 *   the team workspace's migration files bundled in (bundleWorkspaceMigrations);
 * - `vite build --mode preload`: the preload (electron/shell/preload.ts -> dist/preload, CommonJS,
 *   as sandboxed preloads must be).
 * Also the vitest configuration: Node tests, and renderer component tests in jsdom.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { HtmlTagDescriptor, Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import pkg from './package.json' with { type: 'json' };

const nodeExternals = [
  'electron',
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
  ...Object.keys(pkg.dependencies),
].map((name) => new RegExp(`^${name.replace(/[/\\^$*+?.()|[\]{}]/g, '\\$&')}(/.*)?$`));

/** The console imports the engine by its package name: its source here (tsconfig.json `paths` says the same). */
const resolve = { alias: { '@paydesk/sandbox': fileURLToPath(new URL('./packages/sandbox/src/index.ts', import.meta.url)) } };

/**
 * The main process's build carries the team workspace's migrations inside its bundle.
 *
 * electron/console/storage/postgres/migration-files.ts reads ./migrations/*.sql from beside itself,
 * which holds under Node (vitest, tsx) but not in dist/main/main.js, one file in an asar archive.
 * In that build the module is replaced by one returning the same files' text: a packaged app reads
 * no file to migrate (test/storage/migration-files.test.ts checks this module gives the same files).
 */
const MIGRATION_FILES_MODULE = fileURLToPath(new URL('./electron/console/storage/postgres/migration-files.ts', import.meta.url));
const MIGRATIONS_FOLDER = fileURLToPath(new URL('./electron/console/storage/postgres/migrations', import.meta.url));

function migrationFileNames(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.endsWith('.sql')).sort();
}

/** The module that stands for migration-files.ts in the main build: the folder's files as data. */
export function bundledMigrationFilesModule(folder: string = MIGRATIONS_FOLDER): string {
  const files = migrationFileNames(folder).map((fileName) => ({ fileName, text: readFileSync(join(folder, fileName), 'utf8') }));
  return `export const MIGRATIONS_FOLDER = null;\nexport function readMigrationFiles() {\n  return ${JSON.stringify(files)};\n}\n`;
}

function bundleWorkspaceMigrations(): Plugin {
  return {
    name: 'paydesk-bundle-workspace-migrations',
    load(id) {
      if (id.split('?')[0] !== MIGRATION_FILES_MODULE) return null;
      for (const fileName of migrationFileNames(MIGRATIONS_FOLDER)) this.addWatchFile(join(MIGRATIONS_FOLDER, fileName));
      return bundledMigrationFilesModule();
    },
  };
}

/**
 * The console opens on the Overview: its chunk (and the chunks it imports, and its CSS), the charts
 * chunk it imports lazily, and the app (main.tsx: React, i18next, the stores), which the entry
 * (boot.ts) runs after it has drawn the first frame, are named in index.html (issue 28). Not as
 * module preloads: fetched beside the entry they held the entry's first calls back on the browser's
 * six connections to the host and took the main thread for their compile (idle trace: the calls
 * answered at 157–169 ms, main's script at 158). boot.ts preloads them once those calls are
 * answered: figures drawn 0.67–0.75× the time, charts no later (0.95–0.97×), idle A/B.
 */
/** The `rel` of the app's script files named in index.html (renderer/src/boot.ts preloads them). */
const APP_SCRIPT_REL = 'paydesk-app-script';

function preloadOpeningScreen(): Plugin {
  const opening = '/renderer/src/screens/OverviewScreen.tsx';
  const app = '/renderer/src/main.tsx';
  return {
    name: 'paydesk-preload-opening-screen',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return [];
        const chunks = Object.values(bundle).flatMap((file) => (file.type === 'chunk' ? [file] : []));
        const screen = chunks.find((c) => c.facadeModuleId?.endsWith(opening));
        if (!screen) throw new Error(`preloadOpeningScreen: no chunk for ${opening}`);
        const appChunk = chunks.find((c) => c.facadeModuleId?.endsWith(app));
        if (!appChunk) throw new Error(`preloadOpeningScreen: no chunk for ${app}`);
        const entry = chunks.find((c) => c.isEntry);
        const loaded = new Set([entry?.fileName, ...(entry?.imports ?? [])]);
        const files: string[] = [];
        const css = new Set<string>();
        const visit = (name: string) => {
          const chunk = bundle[name];
          if (loaded.has(name) || files.includes(name) || chunk?.type !== 'chunk') return;
          files.push(name);
          for (const sheet of chunk.viteMetadata?.importedCss ?? []) css.add(sheet);
          chunk.imports.forEach(visit);
        };
        visit(appChunk.fileName);
        visit(screen.fileName);
        screen.dynamicImports.forEach(visit);
        return [
          // `data-opening-screen`: bench/first-screen.ts leaves these out of its script-less baseline.
          // Named, not fetched: the entry turns them into module preloads once its first calls are answered
          // (renderer/src/boot.ts), so the app's ~130 kB gzip neither holds those calls back on the browser's six
          // connections to the host nor takes the main thread for its compile before the first frame.
          ...files.map((file): HtmlTagDescriptor => ({ tag: 'link', attrs: { rel: APP_SCRIPT_REL, href: `./${file}`, 'data-opening-screen': true }, injectTo: 'head' })),
          // A stylesheet, not a preload: Vite's loader of the chunk finds it there and does not fetch it again.
          ...[...css].map((file): HtmlTagDescriptor => ({ tag: 'link', attrs: { rel: 'stylesheet', href: `./${file}`, 'data-opening-screen': true }, injectTo: 'head' })),
        ];
      },
    },
  };
}

export default defineConfig(({ mode }) => {
  if (mode === 'main' || mode === 'preload') {
    const preload = mode === 'preload';
    return {
      resolve,
      plugins: preload ? [] : [bundleWorkspaceMigrations()],
      build: {
        outDir: preload ? 'dist/preload' : 'dist/main',
        emptyOutDir: true,
        ssr: preload ? 'electron/shell/preload.ts' : 'electron/shell/main.ts',
        target: 'node20',
        sourcemap: true,
        minify: false,
        rollupOptions: {
          // A sandboxed preload can require only `electron` (and a few built-ins): everything
          // else, zod and shared/ included, is bundled into preload.cjs.
          external: preload ? [/^electron$/] : nodeExternals,
          output: preload
            ? { format: 'cjs' as const, entryFileNames: 'preload.cjs' }
            : { format: 'es' as const, entryFileNames: 'main.js' },
        },
      },
      ssr: { noExternal: preload ? true : undefined },
    };
  }
  return {
    root: 'renderer',
    base: './',
    resolve,
    plugins: [react(), preloadOpeningScreen()],
    build: { outDir: '../dist/renderer', emptyOutDir: true, sourcemap: true },
    test: {
      root: '.',
      // Removes the temp folders each test file made (test/temp-dir.ts).
      setupFiles: ['./test/temp-dirs.setup.ts'],
      // Names what the machine lacks (Chromium, D-Bus, gnome-keyring, better-sqlite3) before any test runs.
      globalSetup: ['./test/preflight.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      projects: [
        {
          extends: true,
          test: {
            name: 'node',
            root: '.',
            environment: 'node',
            include: ['test/**/*.test.ts'],
            exclude: ['test/renderer/**', 'test/e2e/**', 'node_modules/**'],
          },
        },
        {
          // Real Chromium against the real runtime: a person's flow takes several seconds, more on a busy machine.
          extends: true,
          test: {
            name: 'e2e',
            root: '.',
            environment: 'node',
            include: ['test/e2e/**/*.test.ts'],
            testTimeout: 120_000,
          },
        },
        {
          extends: true,
          test: {
            name: 'renderer',
            root: '.',
            environment: 'jsdom',
            include: ['test/renderer/**/*.test.{ts,tsx}'],
            setupFiles: ['./test/temp-dirs.setup.ts', './test/renderer/screens.setup.ts'],
          },
        },
      ],
    },
  };
});
