/** The whole canonical string for a text payload: the shared head plus the payload, as tests write it by hand. */
import { canonicalHead, type CanonicalHead } from '../../shared/contract';

export function canonicalText(parts: CanonicalHead & { payload: string }): string {
  return canonicalHead(parts) + parts.payload;
}
