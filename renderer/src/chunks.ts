/**
 * Code-split parts of the renderer (screens, the Overview's charts) loaded without React Suspense.
 *
 * Why not `React.lazy`: React holds content that resolves after a Suspense fallback was shown for
 * up to 300 ms (its fallback throttle), so every first screen switch and every Overview answer
 * waited ~300 ms for a chunk that had arrived in 20 (issue 28). Here a chunk is a plain promise
 * the UI can start early (the opening screen before the profiles answer, the charts beside the
 * figures' request, a screen when the pointer reaches its button) and render as soon as it is in.
 */
import { useEffect, useState } from 'react';

export interface Chunk<T> {
  /** Starts loading (once; again after a failure) and resolves to the module. */
  load(): Promise<T>;
  /** The module once loaded, else null. */
  loaded(): T | null;
}

export function chunk<T>(importer: () => Promise<T>): Chunk<T> {
  let value: T | null = null;
  let pending: Promise<T> | null = null;
  return {
    load() {
      pending ??= importer().then(
        (module) => (value = module),
        (error: unknown) => {
          // A chunk that failed to arrive (the host restarted) may be asked for again.
          pending = null;
          throw error;
        },
      );
      return pending;
    },
    loaded: () => value,
  };
}

/**
 * The chunk's module, or null while it loads (the caller shows its own placeholder). A chunk that
 * cannot load is thrown in render, as a failed `React.lazy` was: nothing is silently left blank.
 */
export function useChunk<T>(part: Chunk<T>): T | null {
  const [failure, setFailure] = useState<{ part: Chunk<T>; error: unknown } | null>(null);
  const [, setArrived] = useState<Chunk<T> | null>(null);
  const module = part.loaded();
  const drawn = module !== null;
  useEffect(() => {
    // What this render drew decides, not whether the part is in by now: a part that arrived after
    // the render found it missing and before this effect ran would otherwise never be drawn (the
    // placeholder stayed for good; issue 28). load() then answers at once and draws it.
    if (drawn) return;
    let live = true;
    part.load().then(
      () => live && setArrived(part),
      (error: unknown) => live && setFailure({ part, error }),
    );
    return () => {
      live = false;
    };
  }, [part, drawn]);
  if (failure?.part === part) throw failure.error;
  return module;
}
