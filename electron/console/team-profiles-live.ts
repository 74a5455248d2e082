/**
 * Team profiles live across desktops (docs/decisions/team-profiles-live.md): when the store hears a
 * team profile added, edited or removed (workspace migration 36 NOTIFYs it at commit), or may have
 * missed changes (`everything`, its connection came back), the console reads the definitions again
 * and pushes `profiles:changed`, after which every screen that lists profiles (Settings, the
 * profile picker, the payout form) loads them again. No polling loop: nothing is read unless
 * something was heard. The handlers resolve profiles synchronously from the definitions kept in
 * memory (handlers/team-profile-book.ts), so they are read before the push, never after it.
 */
import type { ChangesPort, StoreChange } from './storage/changes-port';

export interface TeamProfilesFollowed {
  /** Reads the workspace's definitions again (the console's team profile book). */
  refresh(): Promise<unknown>;
  /** Tells the screens (the `profiles:changed` push). */
  changed(): void;
  /** A read that failed (the workspace away: its `everything` comes when it is back). */
  failed(error: unknown): void;
}

const touchesProfiles = (change: StoreChange) => change.kind === 'profile' || change.kind === 'everything';

/** Follows `changes` for team profiles; returns the stop. Reads in flight are not repeated: one more read follows them. */
export function followTeamProfiles(changes: ChangesPort, follow: TeamProfilesFollowed): () => void {
  let reading: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  async function read(): Promise<void> {
    do {
      again = false;
      try {
        await follow.refresh();
        if (!stopped) follow.changed();
      } catch (error) {
        if (!stopped) follow.failed(error);
      }
    } while (again && !stopped);
    reading = null;
  }

  const unsubscribe = changes.subscribe((heard) => {
    if (stopped || !heard.some(touchesProfiles)) return;
    // A change heard while a read is under way may not be in it: read once more after.
    if (reading) again = true;
    else reading = read();
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}
