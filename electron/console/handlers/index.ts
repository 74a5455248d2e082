/**
 * The one handler table: every channel of the map, validated with its schema, answering a
 * `Result` and never throwing. Electron IPC and the browser host are transports of this table.
 */
import type { z } from 'zod';
import type { FieldErrors } from '../../../shared/contract';
import { CHANNEL_INPUTS, CHANNELS, type Channel, type ChannelResults, type Result } from '../../../shared/api';
import { createConfirmations } from '../confirmations';
import { VaultError } from '../vault';
import { createWatcher, type Watcher } from '../watcher';
import { createSweeper, type Sweeper } from '../sweeper';
import { createContext, DEFAULT_WATCH, HandlerFailure, type Context, type HandlerDeps, type HandlerImpl } from './context';
import type { BatchRunner } from '../batch/runner';
import { batchHandlers } from './batches';
import { followUpHandlers } from './follow-up';
import { overviewHandlers } from './overview';
import { profileHandlers } from './profiles';
import { reconcileHandlers } from './reconcile';
import { sandboxHandlers } from './sandbox';
import { inspectorHandlers } from './inspector';
import { sendHandlers } from './send';
import { approvalHandlers } from './approvals';
import { auditHandlers } from './audit';
import { peopleHandlers } from './people';
import { workspaceHandlers } from './workspace';
import { teamProfileHandlers } from './team-profiles';
import { teamSandboxHandlers } from './team-sandbox';
import { WorkspaceFaultError } from '../storage/postgres/workspace-session';

export type HandlerTable = { [C in Channel]: (input: unknown) => Promise<Result<ChannelResults[C]>> };
export type { HandlerDeps, WatchOptions } from './context';
export { HandlerFailure } from './context';

/**
 * The dotted field-error map of a failed parse. Kept in a Map until the end: an input with a
 * `__proto__` key must not reach an object's prototype (shared `toFieldErrors` assigns into a
 * plain object, which throws on that key).
 */
export function fieldErrorsOf(issues: readonly z.core.$ZodIssue[]): FieldErrors {
  const fields = new Map<string, string[]>();
  const add = (name: string, message: string) => {
    const list = fields.get(name) ?? [];
    list.push(message);
    fields.set(name, list);
  };
  for (const issue of issues) {
    const prefix = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(prefix ? `${prefix}.${key}` : key, 'is not a known field');
    } else {
      add(prefix || '_', issue.message);
    }
  }
  return Object.fromEntries(fields);
}

type Implementations = { [C in Channel]: HandlerImpl<C> };

function failureOf(channel: Channel, error: unknown, deps: HandlerDeps): Result<never> {
  if (error instanceof HandlerFailure) {
    return { ok: false, error: { code: error.code, message: error.message, ...error.extra } };
  }
  if (error instanceof VaultError) return { ok: false, error: { code: error.code, message: error.message } };
  // A team workspace's fault (unreachable, connection lost, no permission...): its code and words.
  if (error instanceof WorkspaceFaultError) return { ok: false, error: { code: error.code, message: error.message } };
  // Only the error's class goes to the log: an unexpected message could quote anything.
  deps.logger?.error('handler failed unexpectedly', { channel, error: error instanceof Error ? error.name : typeof error });
  return { ok: false, error: { code: 'INTERNAL', message: `The console failed unexpectedly while handling ${channel}; details are in the log.` } };
}

/** The table plus what the runtime needs to shut it down and wait on it. */
export interface HandlerCore {
  handlers: HandlerTable;
  watcher: Watcher;
  /** Bulk payout runs (awaited at shutdown before the journal closes). */
  batches: BatchRunner;
  /** Follows every open entry up until final (started by the runtime, at start and after gaps). */
  sweeper: Sweeper;
  /** Profile resolution and clients, for the runtime's own reads (a sandbox status push). */
  context: Context;
}

export function createHandlerCore(deps: HandlerDeps): HandlerCore {
  const confirmations = createConfirmations(() => deps.clock.now());
  const context = createContext(deps, confirmations, { ...DEFAULT_WATCH, ...deps.watch });
  const watcher = createWatcher(context);
  let runner: BatchRunner | null = null;
  const sweeper = createSweeper(context, {
    batchChanged: (batchId) => runner?.emitProgress(batchId, 'send'),
    isBatchRunning: (batchId) => runner?.isRunning(batchId) ?? false,
    ...(deps.followUpDuty ? { duty: deps.followUpDuty } : {}),
  });
  const batches = batchHandlers(context, { afterRun: () => sweeper.poke() });
  runner = batches.runner;
  const implementations: Implementations = {
    ...profileHandlers(context),
    ...sendHandlers(context, watcher),
    ...followUpHandlers(context, watcher),
    ...sandboxHandlers(context),
    ...batches.handlers,
    ...inspectorHandlers(context),
    ...reconcileHandlers(context),
    ...overviewHandlers(context),
    ...approvalHandlers(context),
    ...auditHandlers(context),
    ...peopleHandlers(context),
    ...workspaceHandlers(context),
    ...teamProfileHandlers(context),
    ...teamSandboxHandlers(context),
  };

  const table = {} as Record<Channel, (input: unknown) => Promise<Result<unknown>>>;
  for (const channel of CHANNELS) {
    const schema = CHANNEL_INPUTS[channel];
    const implementation = implementations[channel] as (input: unknown) => Promise<unknown>;
    table[channel] = async function handleChannel(input: unknown): Promise<Result<unknown>> {
      try {
        // A transport passes `undefined` for an empty body: the no-input channels accept that.
        const parsed = schema.safeParse(input === undefined ? {} : input);
        if (!parsed.success) {
          return { ok: false, error: { code: 'INVALID_INPUT', message: `Invalid input for ${channel}.`, fields: fieldErrorsOf(parsed.error.issues) } };
        }
        return { ok: true, value: await implementation(parsed.data) };
      } catch (error) {
        return failureOf(channel, error, deps);
      }
    };
  }
  return { handlers: table as HandlerTable, watcher, batches: batches.runner, sweeper, context };
}
