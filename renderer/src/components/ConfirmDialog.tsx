/**
 * The one "are you sure?" dialog for an action that cannot be undone (cancel a batch's remaining
 * rows, drop invalid rows, delete a profile): a sentence, the safe answer first (it gets the
 * focus, so Enter keeps things as they are), and the action in the danger style. The dialog closes
 * before the action runs.
 */
import type { ReactNode } from 'react';
import { Dialog } from './Dialog';

export function ConfirmDialog({
  title,
  children,
  details,
  keepLabel,
  actLabel,
  actDisabled = false,
  onClose,
  onConfirm,
}: {
  title: string;
  /** What happens, in words (a paragraph). */
  children: ReactNode;
  /** What it applies to, after the sentence (a list: not inside its paragraph). */
  details?: ReactNode;
  /** The safe answer: closes and changes nothing. */
  keepLabel: string;
  /** The action, in words ("Cancel 40 rows"). */
  actLabel: string;
  /** The action waits for what it applies to (read from main). */
  actDisabled?: boolean;
  onClose: () => void;
  onConfirm: () => void;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      <p>{children}</p>
      {details}
      <div className="actions">
        <button type="button" className="secondary" onClick={onClose}>
          {keepLabel}
        </button>
        <button
          type="button"
          className="danger"
          disabled={actDisabled}
          onClick={() => {
            onClose();
            onConfirm();
          }}
        >
          {actLabel}
        </button>
      </div>
    </Dialog>
  );
}
