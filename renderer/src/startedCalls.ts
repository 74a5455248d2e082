/**
 * Calls boot.ts starts before the app exists (the Overview's figures, the profiles, app:info),
 * handed to the app's first identical call (same channel and input), once: main is never asked
 * twice at start, and a later call asks afresh.
 */
import type { PaydeskApi, Result } from '../../shared/api';

export type StartedCalls = Map<string, Promise<Result<unknown>>>;

export function callKey(channel: string, input: unknown): string {
  return `${channel} ${JSON.stringify(input ?? {})}`;
}

export function reusingStartedCalls(api: PaydeskApi, started: StartedCalls): PaydeskApi {
  return {
    invoke(channel, input) {
      const key = callKey(channel, input);
      const answer = started.get(key);
      if (!answer) return api.invoke(channel, input);
      started.delete(key);
      return answer as never;
    },
    on: (event, listener) => api.on(event, listener),
  };
}
