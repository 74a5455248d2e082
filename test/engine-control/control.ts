/**
 * Calling the control API over real HTTP, as a developer's script would.
 */
import type { EngineHandle } from '../../packages/sandbox/src/engine';

export interface ControlAnswer<T = unknown> {
  status: number;
  body: { success: boolean; message: string; data?: T; code?: string; errors?: unknown };
}

export async function control<T = unknown>(
  engine: EngineHandle,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${engine.control.adminToken}` },
): Promise<ControlAnswer<T>> {
  const response = await fetch(`${engine.api.url}/_sandbox${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as ControlAnswer<T>['body'] };
}

/** Expects a 2xx answer and returns its data. */
export function data<T>(answer: ControlAnswer<T>): T {
  if (answer.status < 200 || answer.status >= 300 || !answer.body.success) throw new Error(`expected success, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data as T;
}
