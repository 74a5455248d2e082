/**
 * The console's log: JSON lines in `<userDataDir>/logs/console.log`, through the one logger of
 * main and the engine (@paydesk/sandbox's log.ts: pino, redaction, size cap, asynchronous writes).
 */
import { join } from 'node:path';
import { createLog, type LogHandle } from '@paydesk/sandbox';

export function fileLogger(userDataDir: string, echo: boolean = false): LogHandle & { path: string } {
  const path = join(userDataDir, 'logs', 'console.log');
  return Object.assign(createLog({ file: path, echo }), { path });
}
