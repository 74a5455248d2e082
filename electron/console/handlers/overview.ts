/**
 * The Overview: the active profile's figures for today and the last seven days, from the store
 * (this desktop's journal or the team workspace; no request to the service; the wallet balance is
 * `balance:get`).
 */
import { OverviewOverflowError } from '../journal/overview';
import { HandlerFailure, type Context, type HandlerImpls } from './context';

export function overviewHandlers(context: Context): HandlerImpls<'overview:get'> {
  const { deps } = context;
  return {
    async 'overview:get'(input) {
      const profile = context.activeProfile();
      context.requireAllowed(profile);
      try {
        const figures = await deps.storage.journal.overview({
          profile: { id: profile.id, name: profile.name, environment: profile.environment },
          dayBoundaries: input.dayBoundaries.map((iso) => Date.parse(iso)),
          now: deps.clock.now(),
        });
        // The screen says whose figures they are: on a workspace, every login's entries of the profile.
        return { ...figures, journal: context.teamProfiles.onWorkspace() ? 'team' : 'desktop' };
      } catch (error) {
        if (error instanceof OverviewOverflowError) {
          throw new HandlerFailure('CONFLICT', 'A total on the Overview is too large to show exactly; narrow the period in History instead.');
        }
        throw error;
      }
    },
  };
}
