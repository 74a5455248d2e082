/**
 * Keeps a screen's open item (a batch, a reconciliation report) in the address, so reload and
 * Back restore it (issue 26 item 4): opening one writes its id into the screen's parameters (the
 * router makes that a step Back walks through: PLACE_PARAMS), and an address naming one (a
 * reload, Back, Forward, a link) opens it.
 */
import { useEffect, useRef } from 'react';
import { useUi } from '../stores';

export function useOpenInAddress(key: string, openId: string | null, open: (id: string) => void, close: () => void): void {
  const named = useUi((s) => s.params[key] ?? null);
  const params = useUi((s) => s.params);
  const setParams = useUi((s) => s.setParams);
  /** The id the address named when last followed; undefined before the first render's effect. */
  const followed = useRef<string | null | undefined>(undefined);
  /** Asked to open (the address named it) and not open yet: a store that shows nothing meanwhile must not clear the address. */
  const opening = useRef<string | null>(null);
  // The latest open / close, without making each render's new function a reason to run again.
  const actions = useRef({ open, close });
  actions.current = { open, close };
  useEffect(() => {
    const { open, close } = actions.current;
    const write = (id: string | null) => {
      const rest = Object.fromEntries(Object.entries(params).filter(([name]) => name !== key));
      setParams(id === null ? rest : { ...rest, [key]: id });
      followed.current = id;
    };
    if (named !== followed.current) {
      const first = followed.current === undefined;
      followed.current = named;
      if (named !== null && named !== openId) {
        opening.current = named;
        open(named);
      }
      // Back to the screen from the sidebar with an item still open: it stays open, and gets its address.
      else if (named === null && openId !== null) {
        if (first) write(openId);
        else close();
      }
      return;
    }
    // The store moved (opened from the list, an import, a retry, closed): the address follows.
    if (openId === null && opening.current !== null) return;
    opening.current = null;
    if (openId !== named) write(openId);
  }, [named, openId, key, params, setParams]);
}
