/**
 * The team sandbox's control API for an admin's console (issue 38 item 4; docs/team-sender.md "One
 * sandbox for the team"): the team sender's sandbox engine is published on the workspace with its
 * control API's URL and token, which the workspace lets admins alone read (migration 49). Main reads
 * them with this login and calls the control API; the token never reaches the page.
 */
import { z } from 'zod';

/** A control API path under `/_sandbox` (its query included): no `..`, no scheme, no host. */
export const teamSandboxControlPathSchema = z
  .string()
  .max(300, 'must be at most 300 characters')
  .regex(/^\/[A-Za-z0-9_\-./~]*(\?[A-Za-z0-9_\-.~=&%+]*)?$/, 'is a path under /_sandbox, such as /settings or /clock/advance')
  .refine((path) => !path.split('?')[0]!.split('/').includes('..'), 'must not climb out of /_sandbox');

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export const TEAM_SANDBOX_CHANNEL_INPUTS = {
  /** One call of the team sandbox's control API as this admin (the workspace refuses anyone else the token). */
  'teamSandbox:control': z.strictObject({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    path: teamSandboxControlPathSchema,
    /** The JSON object the control endpoint takes, as its text (absent: no body); the control API checks its fields. */
    body: z.string().max(64 * 1024, 'must be at most 64 KiB').refine(isJsonObject, 'must be a JSON object').optional(),
  }),
} as const;

export interface TeamSandboxChannelResults {
  /** The control API's answer as it came (its status and its JSON body; the token is never in it). */
  'teamSandbox:control': { status: number; body: unknown };
}
