/**
 * Where text may wrap in a narrow table column: between a number and its currency (never inside
 * either), and in an e-mail after its @ and dots (never in the middle of a word).
 */
import { Fragment, type ReactNode } from 'react';

/** "250 000 FCFA" with the space before the currency breakable: the number stays whole, the unit may go under it. */
export function moneyInCell(text: string): string {
  return text.replace(/[\u00a0\u202f ](?=[^\d\s\u00a0\u202f]+$)/u, ' ');
}

/** An e-mail (or a dotted name) with line-break opportunities after @ and each dot. */
export function breakableAddress(text: string): ReactNode {
  const parts = text.split(/(?<=[@.])/);
  if (parts.length === 1) return text;
  return parts.map((part, index) => (
    <Fragment key={index}>
      {index > 0 ? <wbr /> : null}
      {part}
    </Fragment>
  ));
}
