#!/usr/bin/env node
/**
 * Run by `npm start` before launching Electron; needs the network the first time only.
 * 1. Electron's binary: npm does not run electron's install script (it is not in allowScripts, so
 *    `npm install` and `npm test` never need it); fetch it here if it is missing.
 * 2. better-sqlite3 for Electron's ABI: built into .electron-native/ (a copy of the package), so
 *    node_modules keeps the Node build that `npm test` uses. Main passes that binary to
 *    better-sqlite3 as `nativeBinding` (electron/shell/native.ts). Both commands keep working in
 *    any order with no manual step.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

function fail(message) {
  console.error(`paydesk: ${message}`);
  process.exit(1);
}

// 1. The Electron binary.
const electronDir = dirname(require.resolve('electron/package.json'));
const electronVersion = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
const pathFile = join(electronDir, 'path.txt');
const binaryPresent = existsSync(pathFile) && existsSync(join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()));
if (!binaryPresent) {
  console.log(`paydesk: downloading Electron ${electronVersion} (first start only)...`);
  try {
    execFileSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'inherit', cwd: electronDir });
  } catch {
    fail(
      `could not download Electron ${electronVersion}. This needs access to Electron's release downloads ` +
        '(or ELECTRON_MIRROR). Without it, run the same console in a browser: npm run start:browser',
    );
  }
}

// 2. better-sqlite3 built for Electron, beside the Node build.
const sqliteDir = dirname(require.resolve('better-sqlite3/package.json'));
const sqliteVersion = JSON.parse(readFileSync(join(sqliteDir, 'package.json'), 'utf8')).version;
const target = join(root, '.electron-native', 'better-sqlite3');
const stampFile = join(target, 'paydesk-stamp.json');
const stamp = JSON.stringify({ electron: electronVersion, betterSqlite3: sqliteVersion, platform: process.platform, arch: process.arch });
const binary = join(target, 'build', 'Release', 'better_sqlite3.node');
if (existsSync(binary) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
  process.exit(0);
}
console.log(`paydesk: building better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} (once per version)...`);
rmSync(target, { recursive: true, force: true });
mkdirSync(dirname(target), { recursive: true });
cpSync(sqliteDir, target, { recursive: true, filter: (src) => !src.includes(`${join(sqliteDir, 'build')}`) });
const common = { cwd: target, stdio: 'inherit', env: { ...process.env, npm_config_runtime: 'electron', npm_config_target: electronVersion } };
let built;
try {
  // Electron prebuilds first (fast), as better-sqlite3's own install does for Node.
  execFileSync(process.execPath, [require.resolve('prebuild-install/bin.js', { paths: [sqliteDir] }), '--runtime', 'electron', '--target', electronVersion], common);
  built = existsSync(binary);
} catch {
  built = false;
}
if (!built) {
  try {
    const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js');
    execFileSync(
      process.execPath,
      [nodeGyp, 'rebuild', '--release', `--target=${electronVersion}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers'],
      common,
    );
    built = existsSync(binary);
  } catch {
    // reported below
  }
}
if (!built) fail('could not build better-sqlite3 for Electron (needs a C++ toolchain and Electron headers). `npm run start:browser` works without it.');
writeFileSync(stampFile, stamp);
console.log('paydesk: better-sqlite3 ready for Electron.');
