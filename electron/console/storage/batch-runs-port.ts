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
}
