/**
 * A real webhook receiver on loopback: records every request (headers and exact body) and answers
 * with whatever the test decides, so tests wait for named arrivals instead of sleeping.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  /** Parsed body. */
  json: { type: string; timestamp: string; data: Record<string, unknown> & { transaction_id: string } };
}

/** HTTP status to answer with, or 'hang' to never answer (the request stays open until closed). */
export type Answer = number | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Resolves once `predicate` holds for the requests received so far (checked on each arrival). */
  waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startReceiver(answer: (webhook: ReceivedWebhook, index: number) => Answer = () => 200, port = 0): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
      const webhook: ReceivedWebhook = { headers, body, json: JSON.parse(body) as ReceivedWebhook['json'] };
      const index = received.length;
      received.push(webhook);
      const status = answer(webhook, index);
      if (status === 'hang') hanging.add(response);
      else response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      for (const waiter of [...waiters]) waiter();
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actualPort}/hooks/paydesk`,
    port: actualPort,
    received,
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(received)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(received);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: condition not met after ${timeoutMs} ms; got ${received.map((webhook) => webhook.json.type).join(', ') || 'nothing'}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
