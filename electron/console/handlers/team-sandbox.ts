/**
 * The team sandbox's control API for an admin's console (issue 38 item 4; docs/team-sender.md "One
 * sandbox for the team"; docs/decisions/team-sandbox-control-api.md). Main reads the control API's
 * URL and token as this login (the workspace gives them to admins only, migration 49), calls it, and
 * answers with its status and body: the token never reaches the page.
 */
import { HandlerFailure, type Context, type HandlerImpls } from './context';

const CONTROL_TIMEOUT_MS = 15_000;

export function teamSandboxHandlers(context: Context): HandlerImpls<'teamSandbox:control'> {
  const { deps } = context;
  return {
    async 'teamSandbox:control'({ method, path, body }) {
      const port = deps.storage.teamSandbox;
      if (!port) throw new HandlerFailure('TEAM_PROFILES_UNAVAILABLE', 'The team sandbox is a team workspace\'s: this console records in this desktop\'s own journal.');
      const access = await port.control();
      if (access.state === 'none') throw new HandlerFailure('NOT_FOUND', 'No team sandbox is published on this workspace: start the team sender with --sandbox (docs/team-sender.md).');
      if (access.state === 'not-admin') throw new HandlerFailure('WORKSPACE_NO_PERMISSION', 'Only the team\'s admins use the team sandbox\'s control API.');
      let answer: Response;
      try {
        answer = await fetch(`${access.controlUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${access.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
        });
      } catch (error) {
        throw new HandlerFailure('SANDBOX_UNAVAILABLE', `The team sandbox at ${access.controlUrl} did not answer (${error instanceof Error ? error.message : String(error)}): is the team sender running?`);
      }
      const text = await answer.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: the text as it came
      }
      return { status: answer.status, body: parsed };
    },
  };
}
