/**
 * Approvals store (issue 25): what waits for this login and what it asked, on a team workspace;
 * each decision answered by main is applied to the lists at once, then the lists are read again
 * (another approver may have acted meanwhile). On a single desktop `available` is false.
 */
import { createStore } from 'zustand/vanilla';
import type { AdminChange, ApiFailure, ApprovalRequest, ApprovalTier, BatchRow, ChannelInput, EarlierImport, PaydeskApi, Result } from '../../../shared/api';
import type { TransactionRequest } from '../../../shared/contract';
import { approvalNotices, type ApprovalNotice } from './approval-notices';

/** History's filters as `approvals:unsent` takes them. */
export type UnsentFilter = ChannelInput<'approvals:unsent'>;

export interface ApprovalsState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  available: boolean;
  login: string | null;
  roles: string[];
  forMe: ApprovalRequest[];
  mine: ApprovalRequest[];
  /** What this login decided (approved or rejected), newest first: a decided request stays in sight. */
  decided: ApprovalRequest[];
  /** An admin's list of everything awaiting, whoever asked (empty for anyone else). */
  everyone: ApprovalRequest[];
  error: ApiFailure | null;
  /** The request a decision is being made on (its buttons wait). */
  busy: number | null;
  /** The last decision's answer, for the notice above the lists. */
  last: { ok: true; request: ApprovalRequest } | { ok: false; id: number; error: ApiFailure } | null;
  load(): Promise<void>;
  approve(request: ApprovalRequest, remark: string): Promise<void>;
  reject(request: ApprovalRequest, remark: string): Promise<void>;
  withdraw(request: ApprovalRequest, remark: string): Promise<void>;
  /**
   * Sends an approved payout or batch from its card: main sends what the approval bound (a
   * payout's request with its profile and external id; a batch's rows under its profile, through
   * the usual start), nothing retyped. The journal entry (a payout) or the batch started, or the refusal.
   */
  sendApproved(request: ApprovalRequest, options?: { acceptDuplicateFile?: true }): Promise<Result<{ id: string }>>;
  /** Asks approval for a payout as built by the form (its external id is the one the approval binds). */
  askPayout(request: TransactionRequest): Promise<Result<{ request: ApprovalRequest | null; externalId: string }>>;
  askBatch(batchId: string): Promise<Result<{ request: ApprovalRequest | null }>>;
  /** A batch request's first rows (read-only, `limit` of them), how many in all, and earlier imports of the same file. */
  batchRows(batchId: string, limit: number): Promise<Result<{ rows: BatchRow[]; total: number; importedBefore: EarlierImport[] }>>;
  /** Requests about a batch or a payout (a batch's page, a transaction's timeline): who asked and who approved. */
  about(subject: { batchId: string } | { environment: 'sandbox' | 'live'; externalId: string }): Promise<Result<{ requests: ApprovalRequest[] }>>;
  /** The workspace's approval policy, and an admin's ask to replace one environment's and currency's tiers (applied when a second admin approves it). */
  policy(): Promise<Result<{ tiers: ApprovalTier[] }>>;
  /** History's requests not sent under its filters (awaiting, approved not yet sent; a closed one its search names). */
  /** One request (History's link to a request in none of this login's lists). */
  get(id: number): Promise<Result<ApprovalRequest>>;
  unsent(filter: UnsentFilter): Promise<Result<{ requests: ApprovalRequest[] }>>;
  askPolicy(environment: 'sandbox' | 'live', currency: string, tiers: { minAmount: number; approvals: 0 | 1 | 2; approverRole: 'finance' | 'admin' }[]): Promise<Result<AdminChange>>;
  /** Bumped by each change event naming approvals: a batch's or a payout's trail reads again on it. */
  heard: number;
  /**
   * The journal's change events named an approval request (or everything): the lists are read
   * again (the nav's count, "asked by you") and what is new for this login is answered, for the
   * desktop notification. Nothing is read before the lists were first loaded. `named` is what the
   * events named (the requests' ids, or everything; none given: everything).
   */
  changed(named?: { everything: boolean; ids: readonly string[] }): Promise<ApprovalNotice[]>;
}

export function createApprovalsStore(api: PaydeskApi) {
  return createStore<ApprovalsState>()((set, get) => {
    async function decide(id: number, call: () => Promise<Result<ApprovalRequest>>): Promise<void> {
      set({ busy: id, last: null });
      const result = await call();
      set({ busy: null, last: result.ok ? { ok: true, request: result.value } : { ok: false, id, error: result.error } });
      await get().load();
    }
    /**
     * A decision whose outcome was not known (APPROVAL_UNCONFIRMED: the workspace lost on its
     * way) is answered once the workspace can be read again: recorded (this login's vote, or its
     * withdrawal, is on the request) shows as done; not recorded says so with the state now.
     */
    async function settleUnconfirmed(login: string): Promise<void> {
      const pending = get().last;
      if (!pending || pending.ok || pending.error.code !== 'APPROVAL_UNCONFIRMED') return;
      const read = await api.invoke('approvals:get', { id: pending.id });
      if (!read.ok || get().last !== pending) return;
      const request = read.value;
      const recorded = request.votes.some((vote) => vote.voter === login) || (request.state === 'withdrawn' && request.decidedBy === login);
      if (recorded) return set({ last: { ok: true, request } });
      const decision = { id: request.id, state: request.state, decidedBy: request.decidedBy, requestedBy: request.requestedBy };
      set({ last: { ok: false, id: request.id, error: { code: 'APPROVAL_NOT_RECORDED', message: `Your decision on request ${request.id} was not recorded.`, decision } } });
    }
    /**
     * A success notice ("Request N is approved: it may be sent now") is of the moment it was
     * pressed: once the request has moved on (sent, decided again, withdrawn) it is dropped. The
     * decision's own change event, which may arrive after its answer, leaves it standing: the
     * request read again is as the notice says (same state, votes and sent).
     */
    async function dropStaleNotice(named: { everything: boolean; ids: readonly string[] }): Promise<void> {
      const shown = get().last;
      if (!shown?.ok || (!named.everything && !named.ids.includes(String(shown.request.id)))) return;
      const read = await api.invoke('approvals:get', { id: shown.request.id });
      if (get().last !== shown) return;
      const now = read.ok ? read.value : null;
      const same = now !== null && now.state === shown.request.state && now.votes.length === shown.request.votes.length && now.sent === shown.request.sent;
      if (!same) set({ last: null });
    }
    return {
      status: 'idle',
      available: false,
      login: null,
      roles: [],
      forMe: [],
      mine: [],
      decided: [],
      everyone: [],
      error: null,
      busy: null,
      last: null,
      heard: 0,
      async changed(named = { everything: true, ids: [] }) {
        set({ heard: get().heard + 1 });
        await dropStaleNotice(named);
        const before = get();
        if (before.status === 'idle') return [];
        await get().load();
        const after = get();
        return before.status === 'ready' && before.available && after.status === 'ready' && after.available ? approvalNotices(before, after) : [];
      },
      async load() {
        if (get().status === 'idle') set({ status: 'loading' });
        const status = await api.invoke('approvals:status', {});
        if (!status.ok) return set({ status: 'error', error: status.error });
        if (!status.value.available) return set({ status: 'ready', available: false, error: null });
        const admin = status.value.roles.includes('admin');
        const [forMe, mine, decided, everyone] = await Promise.all([
          api.invoke('approvals:list', { scope: 'forMe' }),
          api.invoke('approvals:list', { scope: 'mine' }),
          api.invoke('approvals:list', { scope: 'decided' }),
          admin ? api.invoke('approvals:list', { scope: 'everyone' }) : Promise.resolve({ ok: true as const, value: { requests: [] as ApprovalRequest[] } }),
        ]);
        const failed = [forMe, mine, decided, everyone].find((r) => !r.ok);
        if (failed && !failed.ok) return set({ status: 'error', error: failed.error });
        if (!forMe.ok || !mine.ok || !decided.ok || !everyone.ok) return;
        set({
          status: 'ready',
          available: true,
          login: status.value.login,
          roles: status.value.roles,
          forMe: forMe.value.requests,
          mine: mine.value.requests,
          decided: decided.value.requests,
          everyone: everyone.value.requests,
          error: null,
        });
        await settleUnconfirmed(status.value.login);
      },
      approve: (request, remark) => decide(request.id, () => api.invoke('approvals:approve', { id: request.id, digest: request.digest, ...(remark ? { remark } : {}) })),
      reject: (request, remark) => decide(request.id, () => api.invoke('approvals:reject', { id: request.id, remark })),
      askPayout: (request) => api.invoke('approvals:askPayout', { request }),
      askBatch: (batchId) => api.invoke('approvals:askBatch', { batchId }),
      async batchRows(batchId, limit) {
        const [page, detail] = await Promise.all([api.invoke('batches:rows', { batchId, filter: 'all', offset: 0, limit }), api.invoke('batches:get', { batchId })]);
        if (!page.ok) return page;
        if (!detail.ok) return detail;
        return { ok: true, value: { rows: page.value.rows, total: page.value.total, importedBefore: detail.value.importedBefore } };
      },
      about: (subject) => api.invoke('approvals:about', subject),
      policy: () => api.invoke('approvals:policy', {}),
      unsent: (filter) => api.invoke('approvals:unsent', filter),
      get: (id) => api.invoke('approvals:get', { id }),
      askPolicy: (environment, currency, tiers) => api.invoke('people:askPolicy', { environment, currency, tiers }),
      async sendApproved(request, options = {}) {
        set({ busy: request.id, last: null });
        const result =
          request.subject === 'batch' ? await api.invoke('approvals:sendBatch', { id: request.id, ...options }) : await api.invoke('approvals:send', { id: request.id });
        set({ busy: null });
        await get().load();
        return result.ok ? { ok: true, value: { id: result.value.id } } : result;
      },
      withdraw: (request, remark) => decide(request.id, () => api.invoke('approvals:withdraw', { id: request.id, ...(remark ? { remark } : {}) })),
    };
  });
}
