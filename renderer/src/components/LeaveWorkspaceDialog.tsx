/**
 * "Use this desktop only", confirmed (issue 36 item 2; docs/decisions/leaving-keeps-the-policy.md):
 * before a desktop leaves its team workspace the person reads, in plain words, that the team's
 * approval policy does not cover what this desktop then sends with its own profiles, that the
 * team's profiles stay with the team, and that the move is written in the workspace's audit log.
 */
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from './ConfirmDialog';

export function LeaveWorkspaceDialog({ workspaceOpen, onClose, onConfirm }: {
  /** An open workspace hears the move first; one not open (its fault, or lost) cannot: the words say which. */
  workspaceOpen: boolean;
  onClose: () => void;
  onConfirm: () => void;
}) {
  const { t } = useTranslation('workspace');
  return (
    <ConfirmDialog
      title={t('useDesktopConfirmTitle')}
      keepLabel={t('keep')}
      actLabel={t('useDesktopConfirm')}
      onClose={onClose}
      onConfirm={onConfirm}
      details={
        <ul className="leave-policy">
          <li>{t('leave.policy')}</li>
          <li>{t('leave.teamProfiles')}</li>
          <li>{workspaceOpen ? t('leave.audited') : t('leave.notAudited')}</li>
        </ul>
      }
    >
      {t('useDesktopConfirmBody')}
    </ConfirmDialog>
  );
}
