/**
 * A cable to cut: a proxy on its own socket folder in front of the throwaway PostgreSQL cluster,
 * so a test can lose a connection at an exact moment of the protocol, not after a guessed delay.
 *
 * `cutAfterCommit(text)`: the next statement whose bytes contain `text` reaches the server; its
 * answer is held back until the server says it is ready for the next query (ReadyForQuery: the
 * statement's own transaction has committed), then both ends are closed without passing it on.
 * The client saw its statement leave and no answer come back: the COMMIT happened, unknown to it.
 * `cutBefore(text)`: the next statement whose bytes contain `text` never reaches the server: its
 * connection is closed instead (the decision lost on its way, nothing committed).
 * `refuseNew`: new connections are closed at once (the workspace unreachable).
 */
import net from 'node:net';
import path from 'node:path';
import { makeTempDir } from '../temp-dir';

export interface PgCut {
  /** Use as a pg config's host (with the cluster's port). */
  host: string;
  /**
   * `thenRefuse`: from the cut on, new connections are refused too (until `refuseNew` is set false).
   * `everyConnection`: the cut closes every connection through the cable, not only the one that
   * sent `text` (the workspace lost whole: a console's idle pooled connections go with it).
   */
  cutAfterCommit(text: string, options?: { thenRefuse?: boolean; everyConnection?: boolean }): Promise<void>;
  /** As cutAfterCommit, but the statement is dropped before the server sees it. */
  cutBefore(text: string, options?: { thenRefuse?: boolean; everyConnection?: boolean }): Promise<void>;
  refuseNew: boolean;
  close(): Promise<void>;
}

/** ReadyForQuery, outside a transaction block: 'Z', length 5, status 'I'. */
const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

export async function startPgCut(upstream: { host: string; port: number }): Promise<PgCut> {
  const host = makeTempDir('paydesk-pgcut-');
  const sockets = new Set<net.Socket>();
  let armed: { text: Buffer; thenRefuse: boolean; everyConnection: boolean; done: () => void; before?: true } | null = null;
  const cut: PgCut = {
    host,
    refuseNew: false,
    cutAfterCommit(text, options = {}) {
      return new Promise<void>((done) => {
        armed = { text: Buffer.from(text), thenRefuse: options.thenRefuse ?? false, everyConnection: options.everyConnection ?? false, done };
      });
    },
    cutBefore(text, options = {}) {
      return new Promise<void>((done) => {
        armed = { text: Buffer.from(text), thenRefuse: options.thenRefuse ?? false, everyConnection: options.everyConnection ?? false, done, before: true };
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = net.createServer((client) => {
    if (cut.refuseNew) {
      client.destroy();
      return;
    }
    const server = net.connect({ path: path.join(upstream.host, `.s.PGSQL.${upstream.port}`) });
    sockets.add(client).add(server);
    let held: { buffer: Buffer; thenRefuse: boolean; everyConnection: boolean; done: () => void } | null = null;
    const end = () => {
      client.destroy();
      server.destroy();
      sockets.delete(client);
      sockets.delete(server);
    };
    client.on('data', (chunk) => {
      if (armed?.before && chunk.includes(armed.text)) {
        const { thenRefuse, everyConnection, done } = armed;
        armed = null;
        if (thenRefuse) cut.refuseNew = true;
        end();
        if (everyConnection) for (const socket of sockets) socket.destroy();
        return done();
      }
      if (armed && chunk.includes(armed.text)) {
        held = { buffer: Buffer.alloc(0), thenRefuse: armed.thenRefuse, everyConnection: armed.everyConnection, done: armed.done };
        armed = null;
      }
      server.write(chunk);
    });
    server.on('data', (chunk) => {
      if (!held) return void client.write(chunk);
      held.buffer = Buffer.concat([held.buffer, chunk]);
      if (held.buffer.includes(READY_IDLE)) {
        if (held.thenRefuse) cut.refuseNew = true;
        end();
        if (held.everyConnection) for (const socket of sockets) socket.destroy();
        held.done();
      }
    });
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(path.join(host, `.s.PGSQL.${upstream.port}`), resolve));
  return cut;
}
