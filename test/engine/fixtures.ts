/**
 * A seed with every kind of application and key the auth and isolation tests need.
 */
import { parseSeed, type Seed } from '../../packages/sandbox/src/engine';

const key = (environment: 'sandbox' | 'live', type: 'payment' | 'payout', name: string, extra: Record<string, unknown> = {}) => ({
  environment,
  type,
  publicKey: `pk_${environment}_${type}_${name}`,
  secretKey: `sk_${environment}_${type}_${name}_secret_value`,
  ...extra,
});

const pair = (environment: 'sandbox' | 'live', name: string) => [key(environment, 'payment', name), key(environment, 'payout', name)];

export const TEST_SEED: Seed = parseSeed({
  applications: [
    {
      id: 'app_main',
      name: 'Main Shop',
      liveApproved: true,
      keys: [
        ...pair('sandbox', 'main'),
        ...pair('live', 'main'),
        key('sandbox', 'payment', 'disabled', { active: false }),
        key('sandbox', 'payment', 'elsewhere', { ipWhitelist: ['10.1.2.3'] }),
        key('sandbox', 'payment', 'loopback', { ipWhitelist: ['127.0.0.1'] }),
      ],
      wallets: { sandbox: 1_000_000, live: 500_000 },
      methods: [
        { code: 'service_demo' },
        { code: 'momo_cm' },
        { code: 'orange_cm' },
        { code: 'card_collect' },
        { code: 'app_blocked', payments: false, payouts: false },
      ],
    },
    { id: 'app_other', name: 'Other Shop', liveApproved: true, keys: [...pair('sandbox', 'other'), ...pair('live', 'other')], wallets: { sandbox: 1_000_000, live: 1_000_000 } },
    { id: 'app_inactive', name: 'Inactive Shop', status: 'inactive', liveApproved: true, keys: pair('sandbox', 'inactive') },
    { id: 'app_pending', name: 'Pending Shop', status: 'pending', keys: pair('sandbox', 'pending') },
    { id: 'app_nolive', name: 'Sandbox-only Shop', liveApproved: false, keys: [...pair('sandbox', 'nolive'), ...pair('live', 'nolive')] },
  ],
  methods: [
    { code: 'service_demo', name: 'Service Demo', environments: ['sandbox'] },
    { code: 'momo_cm', name: 'MTN Mobile Money Cameroon', payoutPrefixes: ['+237'] },
    { code: 'orange_cm', name: 'Orange Money Cameroon', enabled: false },
    { code: 'card_collect', name: 'Card collection', payouts: false },
    { code: 'app_blocked', name: 'Not for this app' },
  ],
  fees: { payment: { percentBps: 150, fixed: 0 }, payout: { percentBps: 100, fixed: 50 } },
});
