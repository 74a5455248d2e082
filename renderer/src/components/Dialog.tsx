/** A modal dialog: focus moves in on open, Tab stays inside, Escape closes, focus returns after. */
import { useLayoutEffect, useRef, type ReactNode } from 'react';

/** Open dialogs, innermost last: only the innermost one answers Escape. */
const openDialogs: HTMLElement[] = [];

const FOCUSABLE = 'input, select, textarea, button:not([disabled]), a[href], [tabindex="0"]';

export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  // A layout effect, not a passive one: focus is inside before the dialog is first painted, so a key
  // pressed the moment it appears already reaches it.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const previous = document.activeElement as HTMLElement | null;
    openDialogs.push(dialog);
    const first = dialog.querySelector<HTMLElement>('input, button:not([disabled]), [tabindex="0"]');
    (first ?? dialog).focus();
    // Escape is heard on the document: focus can fall to <body> (a focused button becomes disabled, a
    // node is replaced) and the dialog must still close from the keyboard.
    function onDocumentKeyDown(event: KeyboardEvent) {
      if (event.key !== 'Escape' || event.defaultPrevented || openDialogs[openDialogs.length - 1] !== dialog) return;
      event.preventDefault();
      onCloseRef.current();
    }
    // Focus that leaves a modal dialog (a click on the backdrop, a replaced node) is brought back inside.
    function onDocumentFocusIn(event: FocusEvent) {
      if (openDialogs[openDialogs.length - 1] !== dialog || !dialog) return;
      if (event.target instanceof Node && !dialog.contains(event.target)) dialog.focus();
    }
    document.addEventListener('keydown', onDocumentKeyDown);
    document.addEventListener('focusin', onDocumentFocusIn);
    return () => {
      document.removeEventListener('keydown', onDocumentKeyDown);
      document.removeEventListener('focusin', onDocumentFocusIn);
      openDialogs.splice(openDialogs.indexOf(dialog), 1);
      previous?.focus?.();
    };
  }, []);
  function onKeyDown(event: React.KeyboardEvent) {
    if (event.key !== 'Tab' || !ref.current) return;
    const focusable = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && (document.activeElement === first || document.activeElement === ref.current)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }
  return (
    <div className="backdrop">
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="dialog-title" ref={ref} tabIndex={-1} onKeyDown={onKeyDown}>
        <h2 id="dialog-title">{title}</h2>
        {children}
      </div>
    </div>
  );
}
