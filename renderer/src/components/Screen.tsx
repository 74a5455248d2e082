/** A screen of the console: a landmark named by its heading, and a line on what the screen is for. */
import type { ReactNode } from 'react';

export function Screen({
  id,
  title,
  intro,
  width = 'narrow',
  children,
}: {
  /** Names the heading `${id}-title` (tests and the landmark find it by that). */
  id: string;
  title: string;
  intro: ReactNode;
  /** `wide` for tables and two columns; `full` for a report that takes the whole window. */
  width?: 'narrow' | 'wide' | 'full';
  children: ReactNode;
}) {
  const className = width === 'full' ? 'screen wide full' : width === 'wide' ? 'screen wide' : 'screen';
  return (
    <section className={className} aria-labelledby={`${id}-title`}>
      <header className="screen-head">
        <h1 id={`${id}-title`}>{title}</h1>
        <p className="muted">{intro}</p>
      </header>
      {children}
    </section>
  );
}
