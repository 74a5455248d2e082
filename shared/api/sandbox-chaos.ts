/** The Sandbox screen's webhook chaos form (`sandbox:setChaos`), validated the same in the renderer, IPC and main. */
import { z } from 'zod';

const chaosShare = z.number({ error: 'must be a number' }).min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1');
/** The Sandbox screen's webhook chaos form: a share (0–1) of deliveries per behaviour. */
export const sandboxChaosSchema = z
  .strictObject({
    drop: chaosShare.default(0),
    late: chaosShare.default(0),
    lateSeconds: z.number({ error: 'must be a number' }).positive('must be greater than 0').max(86_400, 'must be at most 86400 (a day)').default(30),
    duplicate: chaosShare.default(0),
    outOfOrder: chaosShare.default(0),
  })
  .refine((chaos) => chaos.drop > 0 || chaos.late > 0 || chaos.duplicate > 0 || chaos.outOfOrder > 0, {
    path: ['drop'],
    message: 'give at least one share above 0 (Turn off removes chaos)',
  });
