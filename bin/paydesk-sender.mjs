#!/usr/bin/env node
// The team sender's command (docs/team-sender.md): electron/sender/cli.ts run with tsx as a loader,
// in this process (a SIGTERM or SIGKILL reaches the sender itself).
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register();
const cli = fileURLToPath(new URL('../electron/sender/cli.ts', import.meta.url));
process.argv[1] = cli;
await import(cli);
