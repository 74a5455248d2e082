/**
 * The "load more" control of a list paged by cursor (the request inspector, webhook deliveries;
 * see createCursorPager in stores/pages.ts): shown while an older page exists, one ask at a time.
 */
import { useSingleFlight } from './useSingleFlight';

export function LoadMore({ label, next, onMore }: { label: string; next: string | null; onMore: () => Promise<void> }) {
  const flight = useSingleFlight();
  if (next === null) return null;
  return (
    <button type="button" className="secondary small" disabled={flight.busy} aria-busy={flight.busy} onClick={() => void flight.run(onMore)}>
      {label}
    </button>
  );
}
