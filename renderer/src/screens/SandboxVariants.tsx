/**
 * The engine's service variants (`PUT /_sandbox/variants`): the local sandbox answers the spec's
 * silences the other way (duplicates accepted, a 201 for a create, a connection reset after a
 * create…), so an integration can be tried against both answers without a control API call.
 */
import '../sandbox-variants.css';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SANDBOX_MAX_RESET_EVERY, SANDBOX_VARIANTS, type SandboxVariant, type SandboxVariants as VariantsInForce } from '../../../shared/api/sandbox-variants';
import { ErrorNotice } from '../components/common';
import { useControl } from '../components/useControl';
import { formatCount } from '../format/money';
import { translateFieldErrors } from '../messages/fields';
import { useSandbox } from '../stores';

/** The sentence saying which variants are on, in the reader's language. */
function useInForce(): (variants: VariantsInForce | null) => string {
  const { t } = useTranslation('sandbox');
  return (variants) => {
    if (!variants || variants.enabled.length === 0) return t('variants.off');
    const names = variants.enabled.map((variant) =>
      variant === 'reset-after-create'
        ? t('variants.resetDetail', { name: t(`variants.name.${variant}`), count: variants.resetEvery, formatted: formatCount(variants.resetEvery) })
        : t(`variants.name.${variant}`),
    );
    return t('variants.on', { names: names.join(', ') });
  };
}

export function SandboxVariants() {
  const { t } = useTranslation('sandbox');
  const inForce = useSandbox((s) => s.variants);
  const setVariants = useSandbox((s) => s.setVariants);
  const control = useControl();
  const describeInForce = useInForce();
  // What the person ticked and typed; null: the engine's, as read (the 3 s poll keeps it fresh).
  const [chosen, setChosen] = useState<SandboxVariant[] | null>(null);
  const [resetEveryText, setResetEveryText] = useState<string | null>(null);
  const [resetEveryError, setResetEveryError] = useState<string | null>(null);
  const enabled = chosen ?? inForce?.enabled ?? [];
  const resetEvery = resetEveryText ?? String(inForce?.resetEvery ?? 1);
  // The engine's refusal of a field (the same rules, checked again in main): at the field it names.
  const refused = control.failure?.fields ?? {};
  const resetEveryProblem = resetEveryError ?? (refused.resetEvery ? translateFieldErrors(refused.resetEvery).join(' ') : null);

  function toggle(variant: SandboxVariant, on: boolean) {
    const next = new Set(enabled);
    if (on) next.add(variant);
    else next.delete(variant);
    setChosen(SANDBOX_VARIANTS.filter((name) => next.has(name)));
  }

  async function apply(input: { enabled: SandboxVariant[]; resetEvery?: number }) {
    if (await control.run(() => setVariants(input))) {
      setChosen(null);
      setResetEveryText(null);
    }
  }

  function submit(event: React.FormEvent) {
    event.preventDefault();
    const text = resetEvery.trim();
    const every = Number(text);
    const resetting = enabled.includes('reset-after-create');
    if (resetting && (text === '' || !Number.isInteger(every) || every < 1 || every > SANDBOX_MAX_RESET_EVERY)) {
      setResetEveryError(t('variants.resetEveryError'));
      return;
    }
    setResetEveryError(null);
    void apply(resetting ? { enabled, resetEvery: every } : { enabled });
  }

  return (
    <div className="card sandbox-variants">
      <h2 id="sandbox-variants-title">{t('variants.title')}</h2>
      <p className="muted small">{t('variants.intro')}</p>
      <p className="variants-now" role="status" aria-live="polite">{describeInForce(inForce)}</p>
      <form aria-labelledby="sandbox-variants-title" onSubmit={submit} noValidate>
        <fieldset className="variant-list">
          <legend>{t('variants.legend')}</legend>
          {SANDBOX_VARIANTS.map((variant) => (
            <div key={variant} className="variant">
              <input
                id={`variant-${variant}`}
                type="checkbox"
                checked={enabled.includes(variant)}
                onChange={(e) => toggle(variant, e.target.checked)}
                aria-describedby={`variant-${variant}-description`}
              />
              <div>
                <label htmlFor={`variant-${variant}`}>{t(`variants.name.${variant}`)}</label> <code className="muted small">{variant}</code>
                <p id={`variant-${variant}-description`} className="muted small">{t(`variants.description.${variant}`)}</p>
                {variant === 'reset-after-create' ? (
                  <div className="limit-field">
                    <label htmlFor="variant-reset-every">{t('variants.resetEvery')}</label>
                    <input
                      id="variant-reset-every"
                      inputMode="numeric"
                      value={resetEvery}
                      disabled={!enabled.includes('reset-after-create')}
                      onChange={(e) => setResetEveryText(e.target.value)}
                      {...(resetEveryProblem ? { 'aria-invalid': true, 'aria-describedby': 'variant-reset-every-error' } : {})}
                    />
                    {resetEveryProblem ? <span id="variant-reset-every-error" className="field-error" role="alert">{resetEveryProblem}</span> : null}
                  </div>
                ) : null}
              </div>
            </div>
          ))}
        </fieldset>
        <div className="actions left">
          <button type="submit" className="secondary" disabled={control.busy}>{t('variants.apply')}</button>
          <button type="button" className="secondary" disabled={control.busy || (inForce?.enabled.length ?? 0) === 0} onClick={() => void apply({ enabled: [] })}>
            {t('variants.allOff')}
          </button>
        </div>
        {control.failure ? <ErrorNotice failure={control.failure} /> : null}
      </form>
    </div>
  );
}
