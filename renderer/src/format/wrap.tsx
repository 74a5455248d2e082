/**
 * Where text may wrap in a narrow table column: between a number and its currency (never inside
 * either), and in an e-mail after its @ and dots (never in the middle of a word).
 */
import { Fragment, type ReactNode } from 'react';

/** "250 000 FCFA" with the space before the currency breakable: the number stays whole, the unit may go under it. */
export function moneyInCell(text: string): string {
  return text.replace(/[\u00a0\u202f ](?=[^\d\s\u00a0\u202f]+$)/u, ' ');
}

/**
 * An e-mail with line-break opportunities after its @ and after each dot of its domain: the part
 * before the @ is a name ("jean.mbarga1") and stays whole (a narrow column cuts it with an ellipsis).
 */
export function breakableAddress(text: string): ReactNode {
  const at = text.lastIndexOf('@');
  const parts = at < 0 ? [text] : [text.slice(0, at + 1), ...text.slice(at + 1).split(/(?<=\.)/)];
  if (parts.length === 1) return text;
  // Each piece unbreakable (a hyphen inside the name would break it too): lines break only between pieces.
  return parts.map((part, index) => (
    <Fragment key={index}>
      {index > 0 ? <wbr /> : null}
      <span className="nobreak">{part}</span>
    </Fragment>
  ));
}
