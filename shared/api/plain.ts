/**
 * The contract's plain values, without zod: what the renderer's first chunk needs (the channel
 * names to recognise the preload, the theme choices, the Overview's days, the reconcile file's
 * part size). Importing `shared/api` evaluates every zod schema of the channel map, ~90 kB of zod
 * and ~45 ms of main-thread time before the first screen (issue 28); the modules that open the
 * console import from here and from transport.ts, types.ts instead. Each value is re-exported by
 * its usual module, so `shared/api` still offers all of them.
 */

/** Every channel of the map (channels.ts checks at compile time that this list is exactly its keys). */
export const CHANNEL_NAMES = [
  'app:info',
  'preferences:set',
  'profiles:list',
  'profiles:save',
  'profiles:delete',
  'profiles:activate',
  'secrets:set',
  'secrets:has',
  'secrets:delete',
  'methods:list',
  'balance:get',
  'payments:create',
  'payouts:prepare',
  'payouts:initiate',
  'transactions:lookup',
  'transactions:get',
  'transactions:verify',
  'transactions:resolveUnknown',
  'transactions:resend',
  'transactions:search',
  'transactions:export',
  'sandbox:status',
  'sandbox:outcomes',
  'sandbox:wallet',
  'sandbox:topUp',
  'sandbox:deliveries',
  'sandbox:redeliver',
  'sandbox:setWebhookUrl',
  'sandbox:settle',
  'sandbox:advanceClock',
  'sandbox:resetClock',
  'sandbox:setMaintenance',
  'sandbox:revealSecret',
  'sandbox:scenarios',
  'sandbox:addScenario',
  'sandbox:removeScenario',
  'sandbox:recording',
  'sandbox:setRateLimit',
  'sandbox:setChaos',
  'sandbox:clearChaos',
  'sandbox:variants',
  'sandbox:setVariants',
  'batches:template',
  'batches:import',
  'batches:updateRow',
  'batches:dropRows',
  'batches:invalidRows',
  'batches:preview',
  'batches:rehearse',
  'batches:prepare',
  'batches:start',
  'batches:pause',
  'batches:resume',
  'batches:cancel',
  'batches:join',
  'batches:get',
  'batches:rows',
  'batches:list',
  'batches:retryFailed',
  'batches:sendRemaining',
  'batches:report',
  'batches:renewSentIds',
  'sandbox:requests',
  'sandbox:signRequest',
  'reconcile:begin',
  'reconcile:append',
  'reconcile:import',
  'reconcile:list',
  'reconcile:get',
  'reconcile:rows',
  'reconcile:cancel',
  'reconcile:resume',
  'reconcile:verify',
  'reconcile:export',
  'overview:get',
  'approvals:status',
  'approvals:list',
  'approvals:get',
  'approvals:askPayout',
  'approvals:askBatch',
  'approvals:approve',
  'approvals:reject',
  'approvals:withdraw',
  'approvals:about',
  'approvals:policy',
  'audit:list',
  'audit:export',
  'people:list',
  'people:add',
  'people:resetPassword',
  'people:disable',
  'people:setRole',
  'people:askPolicy',
  'people:approveChange',
  'people:rejectChange',
  'workspace:status',
  'workspace:test',
  'workspace:use',
  'workspace:useDesktop',
  'workspace:retry',
  'teamProfiles:save',
  'teamProfiles:delete',
  'teamProfiles:publish',
  'teamProfiles:setKeys',
] as const;

/** The colour theme the user picks in Settings; `system` follows the operating system's light or dark mode. */
export const THEME_PREFERENCES = ['system', 'light', 'dark'] as const;
export type ThemePreference = (typeof THEME_PREFERENCES)[number];

/** Days on the Overview: today and the six before it ("the week" = these seven). */
export const OVERVIEW_DAYS = 7;

/**
 * A reconcile file travels in parts: the browser host refuses bodies over 256 KiB, and 50,000
 * characters stay under it even when every character takes 3 bytes in UTF-8 or is escaped in JSON.
 */
export const RECONCILE_PART_CHARS = 50_000;
