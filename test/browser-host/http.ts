/** Raw HTTP for the browser host tests: full control of Host, Origin and the request path. */
import { request, type IncomingMessage } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
  json(): unknown;
}

export interface RawRequest {
  port: number;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export function rawRequest({ port, method = 'GET', path, headers = {}, body }: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens the event stream and hands out each SSE frame as it arrives. */
export function openEventStream(port: number, path: string, headers: Record<string, string> = {}): Promise<{
  status: number;
  headers: IncomingMessage['headers'];
  nextFrame(): Promise<string>;
  close(): void;
}> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false }, (res) => {
      let buffer = '';
      const frames: string[] = [];
      const waiters: ((frame: string) => void)[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const waiter = waiters.shift();
          if (waiter) waiter(frame);
          else frames.push(frame);
        }
      });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        nextFrame: () => {
          const frame = frames.shift();
          return frame !== undefined ? Promise.resolve(frame) : new Promise((r) => waiters.push(r));
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
