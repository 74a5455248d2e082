/**
 * Builds @paydesk/sandbox from the engine's sources in this repository: esbuild bundles the library
 * entry and the CLI (the engine, shared/contract and the signing module inlined; the runtime
 * dependencies left as imports), and tsc writes the type declarations.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const root = join(here, '..', '..');
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const external = Object.keys(pkg.dependencies);
rmSync(join(here, 'dist'), { recursive: true, force: true });

const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', external, sourcemap: false, logLevel: 'warning' };
await build({ ...common, entryPoints: [join(here, 'src', 'index.ts')], outfile: join(here, 'dist', 'index.js') });
await build({
  ...common,
  entryPoints: [join(here, 'src', 'cli.ts')],
  outfile: join(here, 'dist', 'cli.js'),
  banner: { js: '#!/usr/bin/env node' },
});
execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(here, 'tsconfig.build.json')], { cwd: here, stdio: 'inherit' });
