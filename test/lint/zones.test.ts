/**
 * Lint keeps the rooms apart: for each zone of the layout, a file placed in it with a forbidden
 * import fails ESLint (the project's own eslint.config.js through ESLint's Node API), and the same
 * file with an allowed import passes, so the rule is neither missing nor over-broad.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const eslint = new ESLint({ cwd: ROOT });

/** The messages of the import rules for `code` as if it were the file at `path` (repo-relative). */
async function importErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${path}` });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.fatal).map((m) => `${m.ruleId}: ${m.message}`);
}

const cases: { zone: string; file: string; forbidden: string[]; allowed: string[] }[] = [
  {
    zone: 'shared/ imports nothing from Node, Electron or the DOM',
    file: 'shared/contract/zone-probe.ts',
    forbidden: ["import { readFileSync } from 'node:fs';", "import { app } from 'electron';", "import { createRoot } from 'react-dom/client';", "import { x } from '../../electron/signing';"],
    allowed: ["import { z } from 'zod';"],
  },
  {
    zone: 'a package never imports the app: nothing of electron/, renderer/ or Electron',
    file: 'packages/sandbox/src/control/zone-probe.ts',
    forbidden: [
      "import { x } from '../../../../electron/console/runtime';",
      "import { x } from '../../../../electron/shell/window';",
      "import { x } from '../../../../electron/browser-host/server';",
      "import { x } from '../../../../electron/client/sign';",
      "import { x } from '../../../../electron/net/renderer-files';",
      "import { x } from '../../../../renderer/src/router';",
      "import { app } from 'electron';",
    ],
    allowed: ["import { secretMatches } from '../net/loopback';", "import { splitTarget } from '../signing';", "import { x } from '../engine';", "import { formatTimestamp } from '../../../../shared/contract';"],
  },
  {
    zone: 'a package never imports the app, from any package folder (scripts and sources alike)',
    file: 'packages/sandbox/scripts/zone-probe.mjs',
    forbidden: ["import { x } from '../../../electron/console/runtime';", "import { x } from '../../../renderer/src/main';"],
    allowed: ["import { build } from 'esbuild';"],
  },
  {
    zone: 'the console reaches the engine only through its public entry',
    file: 'electron/console/zone-probe.ts',
    forbidden: [
      "import { feeFor } from '../../packages/sandbox/src/ledger/fees';",
      "import { x } from '../../packages/sandbox/src/control/outcomes';",
      "import { startEngine } from '../../packages/sandbox/src/engine';",
      "import { x } from '@paydesk/sandbox/src/engine';",
      "import { x } from '../shell/ipc';",
    ],
    allowed: ["import { startEngine, feeFor } from '@paydesk/sandbox';"],
  },
  {
    zone: 'browser-host/ never imports shell/',
    file: 'electron/browser-host/zone-probe.ts',
    forbidden: ["import { x } from '../shell/app-protocol';", "import { app } from 'electron';"],
    allowed: ["import { createConsoleRuntime } from '../console/runtime';"],
  },
  {
    zone: 'renderer/ never imports electron/',
    file: 'renderer/src/zone-probe.ts',
    forbidden: ["import { x } from '../../electron/console/runtime';", "import { ipcRenderer } from 'electron';", "import { readFileSync } from 'node:fs';"],
    allowed: ["import { CHANNELS } from '../../shared/api';"],
  },
  {
    zone: 'electron/net/ depends on none of the servers or transports',
    file: 'electron/net/zone-probe.ts',
    forbidden: ["import { x } from '../../packages/sandbox/src/engine';", "import { x } from '@paydesk/sandbox';", "import { x } from '../console/transport';", "import { x } from '../shell/window';"],
    allowed: ["import { createHash } from 'node:crypto';"],
  },
];

describe('lint zones', () => {
  for (const { zone, file, forbidden, allowed } of cases) {
    it(zone, async () => {
      for (const line of forbidden) {
        const errors = await importErrors(file, `${line}\nexport const probe = 1;\n`);
        expect(errors.length, `${file}: ${line}`).toBeGreaterThan(0);
        for (const error of errors) expect(error).toMatch(/^no-restricted-imports: /);
      }
      for (const line of allowed) {
        expect(await importErrors(file, `${line}\nexport const probe = 1;\n`), `${file}: ${line}`).toEqual([]);
      }
    });
  }
});
