/**
 * A run's sign of life on a shared store (a team workspace): several desktops may send one batch,
 * so a console that starts, or a run that stops on its own fault, must not mark the batch
 * `interrupted` while another desktop is still sending it (docs/decisions/batch-runs-show-life.md).
 * Optional: one desktop's SQLite journal has no other sender (a start means the previous run died).
 */
export interface BatchRunsPort {
  /** This run of the batch shows life until `leaseMs` from now on the store's clock. */
  keepRunAlive?(batchId: string, run: string, leaseMs: number): Promise<void>;
  /** This run has ended: true when another run of the batch still shows life (it carries on). */
  leaveRun?(batchId: string, run: string): Promise<boolean>;
  /**
   * This desktop's earlier consoles (`holders`, each the prefix of its runs' and claims' ids) have
   * stopped without leaving (killed, crashed): in one transaction their runs are removed and their
   * row claims freed, and a row they had in flight (its entry still `pending`) becomes outcome
   * unknown, looked up by external id before anything is sent again, never resent blindly. Only
   * this login's runs and claims (row-level security). Returns the rows made outcome unknown
   * (docs/decisions/restart-ends-own-stopped-runs.md).
   */
  endStoppedConsoles?(holders: readonly string[], at: number): Promise<{ batchId: string; rowNumber: number; journalId: string }[]>;
}

/** The timeline's words for a row whose desktop stopped while it was in flight and started again. */
export const CONSOLE_STOPPED_MESSAGE = 'the desktop sending this row stopped before the answer came (Paydesk started again on it): look it up by its external id';
