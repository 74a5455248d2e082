/** The shared Dialog gives focus back to what opened it (issue 16 item 3), even an opener that was busy. */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Dialog } from '../../renderer/src/components/Dialog';

afterEach(cleanup);

/** Like the payout form: the button is disabled while the quote is fetched, then the dialog opens. */
function Opener({ busyFirst }: { busyFirst: boolean }) {
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(false);
  return (
    <main>
      <h1>Screen</h1>
      <button
        type="button"
        disabled={busy}
        onClick={(event) => {
          if (!busyFirst) return setOpen(true);
          setBusy(true);
          // What Chromium does to a focused button that becomes disabled (jsdom does not).
          event.currentTarget.blur();
          setTimeout(() => {
            setOpen(true);
            setBusy(false);
          }, 10);
        }}
      >
        Review
      </button>
      {open ? (
        <Dialog title="Confirm" onClose={() => setOpen(false)}>
          <button type="button" onClick={() => setOpen(false)}>Cancel</button>
        </Dialog>
      ) : null}
    </main>
  );
}

describe('Dialog focus', () => {
  it('returns to the opener when closed with Escape', async () => {
    const user = userEvent.setup();
    render(<Opener busyFirst={false} />);
    await user.click(screen.getByRole('button', { name: 'Review' }));
    expect(document.activeElement?.textContent).toBe('Cancel');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Review'));
  });

  it('returns to an opener that was disabled (focus had fallen to the body) when the dialog opened', async () => {
    const user = userEvent.setup();
    render(<Opener busyFirst />);
    const review = screen.getByRole('button', { name: 'Review' });
    await user.click(review);
    await screen.findByRole('dialog');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(document.activeElement).toBe(review));
  });
});
