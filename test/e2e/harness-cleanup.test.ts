/**
 * A test whose browser cannot start still leaves nothing in the temp folder: not its console's
 * data folder (`paydesk-e2e-*`), not Playwright's profile and artifacts folders (`playwright*`).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startHarness } from './harness';

describe('e2e harness', () => {
  it('removes every folder it made when Chromium fails to start, and says how to install it', async () => {
    // This worker's temp folder, for this test only: whatever the harness and Playwright make lands here.
    const probe = mkdtempSync(join(tmpdir(), 'paydesk-harness-probe-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = probe;
    try {
      await expect(startHarness({ chromiumPath: join(probe, 'no-chromium-here') })).rejects.toThrow(/Chromium did not start .*npm run setup/);
      expect(readdirSync(probe)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(probe, { recursive: true, force: true });
    }
  });
});
