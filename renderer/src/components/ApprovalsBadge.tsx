/**
 * How many approval requests wait for this login, beside Approvals in the navigation (issue 25
 * item 6). Read once when the shell opens, then again only on the journal's change events naming
 * an approval (stores/index.ts): no polling. Nothing on a single desktop or when nothing waits.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useApprovals } from '../stores';

export function ApprovalsBadge() {
  const { t } = useTranslation('approvals');
  const load = useApprovals((s) => s.load);
  const idle = useApprovals((s) => s.status === 'idle');
  const count = useApprovals((s) => (s.available ? s.forMe.length : 0));
  useEffect(() => {
    if (idle) void load();
  }, [idle, load]);
  if (count === 0) return null;
  return (
    <>
      <span className="nav-badge" aria-hidden="true" data-testid="approvals-badge">
        {count}
      </span>
      <span className="sr-only">, {t('badge', { count })}</span>
    </>
  );
}
