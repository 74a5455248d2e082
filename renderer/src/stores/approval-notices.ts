/**
 * Desktop notifications for approvals (issue 25 item 6): after the journal's change events made
 * the approvals be read again, what is new for this login becomes one OS notification, through the
 * Web Notification API (Electron shows it as the OS's own; a browser shows it once its permission
 * was given). Never a phone number, an external id or anything from a profile: who and how much.
 */
import type { ApprovalRequest } from '../../../shared/api';
import { formatMoney } from '../format/money';
import { t } from '../i18n';

export type ApprovalNotice =
  | { kind: 'waiting'; count: number }
  | { kind: 'decided'; subject: ApprovalRequest['subject']; state: 'approved' | 'rejected'; by: string; amount: number; currency: string };

interface Lists {
  forMe: readonly ApprovalRequest[];
  mine: readonly ApprovalRequest[];
}

/**
 * What changed for this login between two reads: requests newly waiting for it (one notice with
 * how many wait now), and its own requests that were awaiting and are now approved or rejected.
 */
export function approvalNotices(before: Lists, after: Lists): ApprovalNotice[] {
  const notices: ApprovalNotice[] = [];
  const waitedBefore = new Set(before.forMe.map((r) => r.id));
  if (after.forMe.some((r) => !waitedBefore.has(r.id))) notices.push({ kind: 'waiting', count: after.forMe.length });
  const awaitingBefore = new Set(before.mine.filter((r) => r.state === 'awaiting').map((r) => r.id));
  for (const request of after.mine) {
    if (!awaitingBefore.has(request.id) || (request.state !== 'approved' && request.state !== 'rejected')) continue;
    notices.push({ kind: 'decided', subject: request.subject, state: request.state, by: request.decidedBy ?? '?', amount: request.amount, currency: request.currency });
  }
  return notices;
}

/** A notice's words, in the language on screen. */
export function noticeText(notice: ApprovalNotice): { title: string; body: string } {
  if (notice.kind === 'waiting') return { title: t('approvals:notify.waiting', { count: notice.count }), body: t('approvals:notify.waitingBody') };
  return {
    title: t(`approvals:notify.${notice.state}.${notice.subject}`, { who: notice.by }),
    body: t('approvals:notify.amount', { amount: formatMoney(notice.amount, notice.currency) }),
  };
}

/** The Web Notification API where the host has it (absent in some hosts and in tests' DOM). */
function notificationApi(): typeof Notification | null {
  return typeof globalThis.Notification === 'function' ? globalThis.Notification : null;
}

/** Whether asking is still possible: the browser host asks once, from a click (see NotifyPermission). */
export function notificationsAskable(): boolean {
  return notificationApi()?.permission === 'default';
}

/** Asks the host once (must run inside a user gesture); answers whether notifications may show. */
export async function askNotifications(): Promise<boolean> {
  const api = notificationApi();
  if (!api) return false;
  return (await api.requestPermission()) === 'granted';
}

/** Shows each notice as a desktop notification when permitted; otherwise the badge alone says it. */
export function showApprovalNotices(notices: readonly ApprovalNotice[]): void {
  const api = notificationApi();
  if (!api || api.permission !== 'granted') return;
  for (const notice of notices) {
    const { title, body } = noticeText(notice);
    // One tag per kind: a newer "N wait" replaces the older one instead of piling up.
    new api(title, { body, tag: notice.kind === 'waiting' ? 'paydesk-approvals-waiting' : undefined });
  }
}
