/** The packaging config's Electron fuses: flipped at package time, so nothing else would notice a regression. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The `electronFuses:` block of electron-builder.yml as key -> boolean (a flat block of `key: bool` lines). */
function electronFuses(): Record<string, boolean> {
  const lines = readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.trimEnd() === 'electronFuses:');
  expect(start, 'electron-builder.yml has an electronFuses block').toBeGreaterThanOrEqual(0);
  const fuses: Record<string, boolean> = {};
  for (const line of lines.slice(start + 1)) {
    const match = /^ {2}(\w+): (true|false)\s*$/.exec(line);
    if (!match) break;
    fuses[match[1]!] = match[2] === 'true';
  }
  return fuses;
}

describe('electron-builder fuses', () => {
  it('turns RunAsNode off, cookie encryption and ASAR integrity on, and closes the Node entry points', () => {
    expect(electronFuses()).toMatchObject({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });
});
