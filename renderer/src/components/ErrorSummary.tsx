/**
 * The error summary a refused form moves focus to: one sentence saying how many fields need a
 * fix, then one link per field that puts focus on it. Focus goes here (not left on the submit
 * button) so a keyboard or screen-reader user hears what went wrong and can reach each field.
 */
import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { translateFieldErrors } from '../messages/fields';

export interface SummaryItem {
  /** The id of the input (or of a group whose first control takes focus). */
  fieldId: string;
  label: string;
  messages: string[];
}

/** Focuses the field itself, or the first control inside a group (a fieldset has no focus). */
function focusField(id: string): void {
  const target = document.getElementById(id);
  if (!target) return;
  const control = target.matches('input, select, textarea, button') ? target : target.querySelector<HTMLElement>('input, select, textarea, button');
  control?.focus();
}

export function ErrorSummary({ items, attempt }: { items: readonly SummaryItem[]; attempt: number }) {
  const { t } = useTranslation('components');
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  // Each refused attempt moves focus here once; typing afterwards keeps focus where the user is.
  useEffect(() => {
    if (attempt > 0) ref.current?.focus();
  }, [attempt]);
  if (items.length === 0) return null;
  return (
    <div ref={ref} className="notice notice-error error-summary" tabIndex={-1} role="group" aria-labelledby={titleId} data-testid="error-summary">
      <h2 id={titleId} className="error-summary-title">{t('errorSummary', { count: items.length })}</h2>
      <ul>
        {items.map((item) => (
          <li key={item.fieldId}>
            <a
              href={`#${item.fieldId}`}
              onClick={(event) => {
                // The address is the screen's (hash routes): the link moves focus, not the page.
                event.preventDefault();
                focusField(item.fieldId);
              }}
            >
              {t('errorSummaryItem', { label: item.label, problem: translateFieldErrors(item.messages).join('; ') })}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
