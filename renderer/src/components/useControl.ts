/** A control's busy flag and its last failure, for the Sandbox screen's cards. */
import { useState } from 'react';
import type { ApiFailure, Result } from '../../../shared/api';

/** Runs a control and keeps its failure for display. */
export function useControl() {
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  async function run<T>(call: () => Promise<Result<T>>): Promise<boolean> {
    setBusy(true);
    setFailure(null);
    const result = await call();
    setBusy(false);
    if (!result.ok) setFailure(result.error);
    return result.ok;
  }
  return { failure, busy, run };
}
