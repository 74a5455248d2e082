/**
 * Checks shared by the workspace session tests: a refusal is a WorkspaceFaultError with the
 * code expected and that code's English sentence, and no password appears in anything a
 * person, a log or a screen could see (message, detail, stack, the error serialized, log lines).
 */
import { expect } from 'vitest';
import { WorkspaceFaultError } from '../../electron/console/storage/postgres/workspace-session';
import { workspaceFaultSentence } from '../../electron/console/storage/postgres/connection';
import type { WorkspaceFaultCode } from '../../shared/api';

/** Every text an error could show: its message, detail, stack and all its own fields serialized. */
function textsOf(thing: unknown): string[] {
  if (thing instanceof Error) return [thing.message, thing.stack ?? '', JSON.stringify(thing, Object.getOwnPropertyNames(thing)), String((thing as { detail?: unknown }).detail ?? '')];
  return [typeof thing === 'string' ? thing : JSON.stringify(thing) ?? ''];
}

export function expectNoSecret(things: readonly unknown[], secrets: readonly string[]): void {
  const leaks = things.flatMap(textsOf).filter((text) => secrets.some((secret) => text.includes(secret)));
  expect(leaks).toEqual([]);
}

/** Awaits a refusal; checks its code, its sentence and that it carries no password; returns it. */
export async function expectFault(attempt: Promise<unknown>, code: WorkspaceFaultCode, secrets: readonly string[]): Promise<WorkspaceFaultError> {
  const error = await attempt.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WorkspaceFaultError);
  const refusal = error as WorkspaceFaultError;
  expect({ code: refusal.code, message: refusal.message }).toEqual({ code, message: workspaceFaultSentence(code) });
  expectNoSecret([refusal], secrets);
  return refusal;
}
