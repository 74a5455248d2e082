/**
 * Team profiles (issue 24; docs/decisions/team-profiles.md): on a team workspace the connection
 * definitions (name, environment, base URL, header word) are the team's and live in the
 * workspace; each desktop gives its own public keys for a team profile here, and its secret keys
 * through `secrets:set` into its OS keychain, as for its own profiles. No input or answer here
 * carries a secret key.
 */
import { z } from 'zod';
import { ENVIRONMENTS, HEADER_WORD_PATTERN } from '../contract/codes';

const id = z.string().min(1).max(200);

export const teamProfileInputSchema = z.strictObject({
  /** Absent to create. */
  id: id.optional(),
  name: z.string().trim().min(1, 'is required').max(80),
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(500),
  environment: z.enum(ENVIRONMENTS),
  headerWord: z.string().regex(HEADER_WORD_PATTERN, 'letters and digits only, 1 to 32'),
});
export type TeamProfileInput = z.infer<typeof teamProfileInputSchema>;

export const TEAM_PROFILE_CHANNEL_INPUTS = {
  /** Adds or changes a team profile's definition (admins; the workspace refuses anyone else). */
  'teamProfiles:save': teamProfileInputSchema,
  /** Removes a team profile's definition (admins); entries naming it keep their history. */
  'teamProfiles:delete': z.strictObject({ id }),
  /** An admin offers one of this desktop's own profiles to the team: its definition, never its keys. */
  'teamProfiles:publish': z.strictObject({ id }),
  /** This desktop's public keys for a team profile (the secrets go to the keychain with `secrets:set`). */
  'teamProfiles:setKeys': z.strictObject({
    profileId: id,
    paymentPublicKey: z.string().trim().max(200),
    payoutPublicKey: z.string().trim().max(200),
  }),
} as const;

export interface TeamProfileChannelResults {
  'teamProfiles:save': { id: string };
  'teamProfiles:delete': { deleted: boolean };
  'teamProfiles:publish': { id: string };
  'teamProfiles:setKeys': { stored: true };
}
