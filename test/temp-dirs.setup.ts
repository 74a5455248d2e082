/**
 * Setup for every test file (vite.config.ts `setupFiles`): the temp folders made with
 * `makeTempDir` are removed after the file. Registered before the file's own hooks, this afterAll
 * runs after them (hooks run as a stack), when engines and runtimes are already stopped.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir';

afterAll(() => {
  removeTempDirs();
});
