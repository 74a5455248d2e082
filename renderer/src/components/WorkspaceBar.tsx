/**
 * Where this console records, always on screen: a badge in the header (this desktop, or the team
 * workspace and who you are in it), and, when the chosen workspace is not open, a banner saying so
 * with what to do: try again, change its settings, or go back to this desktop only. Never a silent
 * switch to this desktop's journal.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure } from '../../../shared/api/types';
import { chunk, useChunk } from '../chunks';
import { useWorkspace } from '../stores';
import { mayFollowUp, maySend } from '../stores/workspace';
import { ErrorNotice, Loading } from './common';
import { LeaveWorkspaceDialog } from './LeaveWorkspaceDialog';
import '../workspace.css';

// The form carries zod (the connection's schema): loaded only when the banner opens it (issue 28).
const settingChunk = chunk(() => import('../screens/WorkspaceSetting').then((m) => m.WorkspaceSetting));

export function WorkspaceBadge() {
  const { t } = useTranslation('workspace');
  const status = useWorkspace((s) => s.status);
  if (!status) return null;
  if (status.store === 'desktop') {
    return (
      <span className="workspace-badge workspace-desktop" role="status" aria-label={t('badge.desktopLabel')} data-store="desktop">
        {t('badge.desktop')}
      </span>
    );
  }
  if (status.state === 'fault') {
    return (
      <span className="workspace-badge workspace-fault" role="status" data-store="workspace" data-state="fault">
        {t('badge.fault')} · {status.place.database}
      </span>
    );
  }
  const roles = status.who.roles.map((role) => t(`role.${role}`)).join(', ');
  return (
    <span
      className={`workspace-badge workspace-team${status.state === 'lost' ? ' workspace-fault' : ''}`}
      role="status"
      aria-label={t('badge.label', { database: status.place.database, host: status.place.host, login: status.who.login, roles })}
      data-store="workspace"
      data-state={status.state}
    >
      <strong>{t('badge.workspace', { database: status.place.database })}</strong> <span>{t('badge.who', { login: status.who.login, roles })}</span>
    </span>
  );
}

function WorkspaceForm() {
  const { t } = useTranslation();
  const Setting = useChunk(settingChunk);
  return Setting ? <Setting idPrefix="ws-fault" /> : <Loading label={t('loading.screen')} />;
}

export function WorkspaceFaultBanner() {
  const { t } = useTranslation('workspace');
  const status = useWorkspace((s) => s.status);
  const retry = useWorkspace((s) => s.retry);
  const useDesktop = useWorkspace((s) => s.useDesktop);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [changing, setChanging] = useState(false);
  const [confirmDesktop, setConfirmDesktop] = useState(false);
  if (status?.store !== 'workspace' || status.state === 'open') return null;
  // The words come from the code's catalogue entry, in the reader's language (main's English is the same sentence).
  const fault: ApiFailure = { code: status.state === 'fault' ? status.fault.code : 'WORKSPACE_CONNECTION_LOST', message: '' };
  return (
    <div className="workspace-fault-banner" role="region" aria-label={t('badge.fault')}>
      <ErrorNotice failure={failure ?? fault} title={status.state === 'fault' ? t('fault.title', { database: status.place.database, host: status.place.host }) : t('lost')} />
      {status.state === 'fault' ? <p>{t('fault.notFallen')}</p> : null}
      <div className="actions left">
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            void retry().then((result) => {
              setBusy(false);
              setFailure(result.ok ? null : result.error);
            });
          }}
        >
          {busy ? t('fault.retrying') : t('fault.retry')}
        </button>
        <button type="button" className="secondary" aria-expanded={changing} onClick={() => setChanging((c) => !c)}>
          {t('fault.change')}
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => setConfirmDesktop(true)}>
          {t('useDesktop')}
        </button>
      </div>
      {changing ? <WorkspaceForm /> : null}
      {confirmDesktop ? (
        <LeaveWorkspaceDialog
          workspaceOpen={false}
          onClose={() => setConfirmDesktop(false)}
          onConfirm={() => void useDesktop().then((result) => !result.ok && setFailure(result.error))}
        />
      ) : null}
    </div>
  );
}

/** Reads where the console records once at start. */
export function useWorkspaceStatusAtStart(): void {
  const load = useWorkspace((s) => s.load);
  useEffect(() => {
    void load();
  }, [load]);
}

/** Whether this login may send (finance on an open workspace, or this desktop); the database refuses the rest anyway. */
export function useMaySend(): boolean {
  return useWorkspace((s) => maySend(s.status));
}

/** Said beside a send button this login may not use, with the reason. */
export function SendRefusedNote() {
  const { t } = useTranslation('workspace');
  const status = useWorkspace((s) => s.status);
  if (maySend(status) || status?.store !== 'workspace') return null;
  return (
    <p className="notice notice-warn send-refused" role="note">
      {status.state === 'open' ? t(mayFollowUp(status) ? 'sendRefused' : 'sendRefusedReadOnly', { roles: status.who.roles.map((role) => t(`role.${role}`)).join(', ') }) : t('sendStopped')}
    </p>
  );
}

/** Whether this login may look up, Verify and reconcile (finance or support on an open workspace, or this desktop). */
export function useMayFollowUp(): boolean {
  return useWorkspace((s) => mayFollowUp(s.status));
}

/** Said on Look up, Reconcile and beside Verify to a login whose role may not record what the service says (an admin-only login). */
export function FollowUpRefusedNote({ what = 'lookUp' }: { what?: 'lookUp' | 'verify' }) {
  const { t } = useTranslation('workspace');
  const status = useWorkspace((s) => s.status);
  if (mayFollowUp(status) || status?.store !== 'workspace') return null;
  return (
    <p className="notice notice-warn follow-up-refused" role="note">
      {status.state === 'open' ? t(what === 'verify' ? 'verifyRefused' : 'followUpRefused', { roles: status.who.roles.map((role) => t(`role.${role}`)).join(', ') }) : t('sendStopped')}
    </p>
  );
}
