/** A modal dialog: focus moves in on open, Tab stays inside, Escape closes, focus returns after. */
import { useLayoutEffect, useRef, type ReactNode } from 'react';

/** Open dialogs, innermost last: only the innermost one answers Escape. */
const openDialogs: HTMLElement[] = [];

/**
 * The control that last had focus. A dialog often opens after its opener lost focus: a submit
 * button disabled while the payout is prepared drops focus to <body> before the dialog appears.
 * The opener is then the last control focused, not <body>.
 */
let lastFocused: HTMLElement | null = null;
if (typeof document !== 'undefined') {
  document.addEventListener('focusin', (event) => {
    if (event.target instanceof HTMLElement) lastFocused = event.target;
  }, true);
}

function openerOf(active: Element | null): HTMLElement | null {
  if (active instanceof HTMLElement && active !== document.body) return active;
  return lastFocused?.isConnected ? lastFocused : null;
}


/** Frames to wait for an opener that is still disabled (busy) or re-rendered when its dialog closes. */
const RESTORE_TRIES = 20;

/**
 * Gives focus back to the opener once the closing render is committed, unless something else
 * took it on purpose (a screen that opened). An opener re-rendered as a new node is found by its
 * id; one that is gone (the payout was sent and the screen changed) leaves focus on the screen's
 * heading, never on <body>.
 */
function restoreFocus(opener: HTMLElement | null): void {
  const openerId = opener?.id || null;
  let tries = 0;
  function attempt(): void {
    const active = document.activeElement;
    if (active && active !== document.body && !openDialogs.some((d) => d.contains(active)) && active.isConnected) return;
    // A dialog opened since (or this one mounted again) holds focus: the old opener must not take it
    // back, or that dialog's focus guard pulls focus onto the dialog box and off its chosen control.
    const top = openDialogs[openDialogs.length - 1];
    if (top && active && top.contains(active) && !(opener && top.contains(opener))) return;
    const target = opener?.isConnected ? opener : openerId ? document.getElementById(openerId) : null;
    if (target?.isConnected) {
      target.focus();
      if (document.activeElement === target) return;
    }
    if (target && tries < RESTORE_TRIES) {
      tries += 1;
      requestAnimationFrame(attempt);
      return;
    }
    if (openDialogs.length > 0) return; // an outer dialog keeps focus itself
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading) {
      if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
      heading.focus();
    }
  }
  setTimeout(attempt, 0);
}

const FOCUSABLE = 'input, select, textarea, button:not([disabled]), a[href], [tabindex="0"]';

export function Dialog({ title, onClose, children, wide = false }: { title: string; onClose: () => void; children: ReactNode; /** Room for facts in two pairs of columns (a batch's confirmation fits 800 px). */ wide?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  // A layout effect, not a passive one: focus is inside before the dialog is first painted, so a key
  // pressed the moment it appears already reaches it.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = openerOf(document.activeElement);
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
      restoreFocus(opener);
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
      <div className={wide ? 'dialog dialog-wide' : 'dialog'} role="dialog" aria-modal="true" aria-labelledby="dialog-title" ref={ref} tabIndex={-1} onKeyDown={onKeyDown}>
        <h2 id="dialog-title">{title}</h2>
        {children}
      </div>
    </div>
  );
}
