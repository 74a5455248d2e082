/**
 * The fields payments and payouts share, validated with the same zod schema the API uses; field
 * errors, local or from the API's 422 map, appear next to their fields.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure } from '../../../shared/api';
import type { FieldErrors, TransactionRequest } from '../../../shared/contract';
import { normalisePhoneNumber, toFieldErrors, transactionRequestSchema } from '../../../shared/contract';
import { ErrorNotice, Field, describedBy } from '../components/common';
import { ErrorSummary } from '../components/ErrorSummary';
import { t } from '../i18n';
import { liveRefused, activeProfile } from '../stores/profiles';
import { useProfiles, useUi } from '../stores';
import { useSingleFlight } from '../components/useSingleFlight';
import { currencyLabel, formatMoney, formatNumber, parseAmount } from '../format/money';

interface MetadataRow {
  key: string;
  value: string;
}

export interface FormValues {
  payment_method: string;
  amount: string;
  phone_number: string;
  first_name: string;
  last_name: string;
  email: string;
  description: string;
  external_id: string;
  metadata: MetadataRow[];
}

function freshValues(method: string, phoneNumber = ''): FormValues {
  return {
    payment_method: method,
    amount: '',
    phone_number: phoneNumber,
    first_name: '',
    last_name: '',
    email: '',
    description: '',
    external_id: crypto.randomUUID(),
    metadata: [],
  };
}

/** Field names of the API's errors map as the form knows them (`request.` from INVALID_INPUT dropped). */
export function normaliseFieldErrors(fields: FieldErrors | undefined): FieldErrors {
  const out: FieldErrors = {};
  for (const [name, messages] of Object.entries(fields ?? {})) {
    const key = name.replace(/^request\./, '').replace(/^metadata\..*/, 'metadata');
    (out[key] ??= []).push(...messages);
  }
  return out;
}

const KNOWN_FIELDS = ['payment_method', 'amount', 'phone_number', 'customer.first_name', 'customer.last_name', 'customer.email', 'external_id', 'description', 'metadata'];

export function useTransactionForm(methods: string[], currency: string, prefillPhone: { phoneNumber: string; serial: number } | null, consumePrefill: () => void = () => undefined) {
  const [values, setValues] = useState<FormValues>(() => freshValues(methods[0] ?? '', prefillPhone?.phoneNumber));
  const [errors, setErrors] = useState<FieldErrors>({});
  /** Counts refused attempts (local or the service's field errors): each moves focus to the error summary. */
  const [attempt, setAttempt] = useState(0);
  /** This host refuses the active live profile: nothing is built, so nothing can be sent. */
  const refused = useProfiles((s) => liveRefused(s));

  // The method list arrives after the first render, and changes with the profile (a live one has no
  // sandbox-only method): keep the choice only while it is on the list.
  useEffect(() => {
    if (methods[0] && !methods.includes(values.payment_method)) setValues((v) => ({ ...v, payment_method: methods[0] ?? '' }));
  }, [methods, values.payment_method]);

  // "Use this number" from the Sandbox panel.
  useEffect(() => {
    if (!prefillPhone) return;
    setValues((v) => ({ ...v, phone_number: prefillPhone.phoneNumber }));
    consumePrefill();
  }, [prefillPhone, consumePrefill]);

  function set<K extends keyof FormValues>(key: K, value: FormValues[K]) {
    setValues((v) => ({ ...v, [key]: value }));
  }

  /** The request, or null with the field errors shown. */
  function build(): TransactionRequest | null {
    if (refused) return null;
    const amount = parseAmount(values.amount, currency);
    const metadata: Record<string, string> = {};
    const metadataErrors: string[] = [];
    for (const row of values.metadata) {
      if (!row.key.trim() && !row.value.trim()) continue;
      if (!row.key.trim()) metadataErrors.push(t('form:keyMissing'));
      else if (row.key.trim() in metadata) metadataErrors.push(t('form:keyTwice', { key: row.key.trim() }));
      else metadata[row.key.trim()] = row.value;
    }
    const candidate = {
      payment_method: values.payment_method,
      amount: 'amount' in amount ? amount.amount : 1,
      phone_number: normalisePhoneNumber(values.phone_number),
      customer: { first_name: values.first_name, last_name: values.last_name, email: values.email.trim() },
      ...(values.external_id.trim() ? { external_id: values.external_id.trim() } : {}),
      ...(values.description.trim() ? { description: values.description.trim() } : {}),
      ...(Object.keys(metadata).length ? { metadata } : {}),
    };
    const parsed = transactionRequestSchema.safeParse(candidate);
    const found: FieldErrors = parsed.success ? {} : toFieldErrors(parsed.error.issues);
    if ('error' in amount) found.amount = [amount.error, ...(found.amount ?? [])];
    if (metadataErrors.length) found.metadata = [...metadataErrors, ...(found.metadata ?? [])];
    setErrors(found);
    if (Object.keys(found).length > 0) setAttempt((n) => n + 1);
    return Object.keys(found).length === 0 && parsed.success ? parsed.data : null;
  }

  function showServerErrors(fields: FieldErrors | undefined) {
    const found = normaliseFieldErrors(fields);
    setErrors(found);
    if (Object.keys(found).length > 0) setAttempt((n) => n + 1);
  }

  function reset() {
    setValues(freshValues(methods[0] ?? ''));
    setErrors({});
  }

  return { values, set, errors, attempt, build, showServerErrors, reset, setValues, refused };
}
export type TransactionForm = ReturnType<typeof useTransactionForm>;

/**
 * What New payment and New payout share around the form: the form (with the phone number the
 * Sandbox screen may prefill), the failure shown above it, and one submit at a time that clears
 * the last failure and builds the request (a request that is not valid stops at its field errors).
 */
export function useTransactionSubmit(methods: string[], currency: string) {
  const prefill = useUi((s) => s.prefill);
  const clearPrefill = useUi((s) => s.clearPrefill);
  const form = useTransactionForm(methods, currency, prefill, clearPrefill);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const flight = useSingleFlight();
  function submitWith(send: (request: TransactionRequest) => Promise<void>) {
    return (event: React.FormEvent) => {
      event.preventDefault();
      void flight.run(async () => {
        setFailure(null);
        const request = form.build();
        if (request) await send(request);
      });
    };
  }
  /** The service or the console said no: its field errors next to the fields, the rest above the form. */
  function showFailure(error: ApiFailure) {
    if (error.fields) form.showServerErrors(error.fields);
    setFailure(error);
  }
  return { form, failure, busy: flight.busy, submitWith, showFailure };
}

export function TransactionFields({
  form,
  methods,
  currency,
  idPrefix,
  kind = 'payment',
}: {
  form: TransactionForm;
  methods: string[];
  currency: string;
  idPrefix: string;
  /** Who the person is: a payment's customer pays, a payout's recipient receives. */
  kind?: 'payment' | 'payout';
}) {
  const { t: tr } = useTranslation('form');
  const { values, set, errors } = form;
  const id = (name: string) => `${idPrefix}-${name}`;
  const amount = parseAmount(values.amount, currency);
  const others = Object.entries(errors).filter(([name]) => !KNOWN_FIELDS.includes(name));
  const methodsError = useProfiles((s) => s.methodsError);
  /** The fields in the order the form shows them, for the error summary's links. */
  const summaryFields: [string, string, string][] = [
    ['payment_method', id('method'), tr('method')],
    ['amount', id('amount'), tr('amount', { currency: currencyLabel(currency) })],
    ['phone_number', id('phone'), tr('phone')],
    ['customer.first_name', id('first'), tr('firstName')],
    ['customer.last_name', id('last'), tr('lastName')],
    ['customer.email', id('email'), tr('email')],
    ['description', id('description'), tr('description')],
    ['external_id', id('external'), tr('externalId')],
    ['metadata', id('metadata'), tr('metadata')],
  ];
  const summary = summaryFields.flatMap(([name, fieldId, label]) => (errors[name]?.length ? [{ fieldId, label, messages: errors[name] }] : []));
  return (
    <>
      <LiveRefusedNotice />
      {methodsError ? <ErrorNotice failure={methodsError} title={tr('methodsFailed')} /> : null}
      <ErrorSummary items={summary} attempt={form.attempt} />
      {others.length ? (
        <div className="notice notice-error" role="alert">
          {others.map(([name, messages]) => (
            <p key={name}>
              {name === '_' ? '' : `${name}: `}
              {messages.join('; ')}
            </p>
          ))}
        </div>
      ) : null}
      <div className="grid-2">
        <Field id={id('method')} label={tr('method')} errors={errors.payment_method}>
          <select id={id('method')} value={values.payment_method} onChange={(e) => set('payment_method', e.target.value)} {...describedBy(id('method'), errors.payment_method)}>
            {methods.length === 0 ? <option value="">{tr('noMethods')}</option> : null}
            {methods.map((method) => (
              <option key={method} value={method}>
                {method}
              </option>
            ))}
          </select>
        </Field>
        <Field id={id('amount')} label={tr('amount', { currency: currencyLabel(currency) })} errors={errors.amount} hint={'amount' in amount ? formatMoney(amount.amount, currency) : tr('amountHint', { currency: currencyLabel(currency) })}>
          <input
            id={id('amount')}
            inputMode="decimal"
            autoComplete="off"
            value={values.amount}
            onChange={(e) => set('amount', e.target.value)}
            onBlur={() => {
              if ('amount' in amount) set('amount', formatNumber(amount.amount, currency));
            }}
            {...describedBy(id('amount'), errors.amount, true)}
          />
        </Field>
      </div>
      <fieldset className="party" aria-describedby={id('party-hint')}>
        <legend>{tr(`party.${kind}`)}</legend>
        <p className="hint" id={id('party-hint')}>{tr(`party.${kind}Hint`)}</p>
      <Field id={id('phone')} label={tr('phone')} errors={errors.phone_number} hint={tr('phoneHint')}>
        <input id={id('phone')} type="tel" autoComplete="off" value={values.phone_number} onChange={(e) => set('phone_number', e.target.value)} {...describedBy(id('phone'), errors.phone_number, true)} />
      </Field>
      <div className="grid-2">
        <Field id={id('first')} label={tr('firstName')} errors={errors['customer.first_name']}>
          <input id={id('first')} autoComplete="off" value={values.first_name} onChange={(e) => set('first_name', e.target.value)} {...describedBy(id('first'), errors['customer.first_name'])} />
        </Field>
        <Field id={id('last')} label={tr('lastName')} errors={errors['customer.last_name']}>
          <input id={id('last')} autoComplete="off" value={values.last_name} onChange={(e) => set('last_name', e.target.value)} {...describedBy(id('last'), errors['customer.last_name'])} />
        </Field>
      </div>
      <Field id={id('email')} label={tr('email')} errors={errors['customer.email']}>
        <input id={id('email')} type="email" autoComplete="off" value={values.email} onChange={(e) => set('email', e.target.value)} {...describedBy(id('email'), errors['customer.email'])} />
      </Field>
      </fieldset>
      <Field id={id('description')} label={tr('description')} errors={errors.description}>
        <input id={id('description')} value={values.description} onChange={(e) => set('description', e.target.value)} {...describedBy(id('description'), errors.description)} />
      </Field>
      <Field id={id('external')} label={tr('externalId')} errors={errors.external_id} hint={tr('externalIdHint')}>
        <div className="input-row">
          <input id={id('external')} value={values.external_id} onChange={(e) => set('external_id', e.target.value)} {...describedBy(id('external'), errors.external_id, true)} />
          <button type="button" className="secondary" onClick={() => set('external_id', crypto.randomUUID())}>
            {tr('newExternalId')}
          </button>
        </div>
      </Field>
      <fieldset className="metadata" id={id('metadata')}>
        <legend>{tr('metadata')}</legend>
        {values.metadata.map((row, index) => (
          <div className="input-row" key={index}>
            <input
              aria-label={tr('metadataKey', { n: index + 1 })}
              placeholder={tr('keyPlaceholder')}
              value={row.key}
              onChange={(e) => set('metadata', values.metadata.map((r, i) => (i === index ? { ...r, key: e.target.value } : r)))}
            />
            <input
              aria-label={tr('metadataValue', { n: index + 1 })}
              placeholder={tr('valuePlaceholder')}
              value={row.value}
              onChange={(e) => set('metadata', values.metadata.map((r, i) => (i === index ? { ...r, value: e.target.value } : r)))}
            />
            <button type="button" className="secondary" aria-label={tr('removeRow', { n: index + 1 })} onClick={() => set('metadata', values.metadata.filter((_, i) => i !== index))}>
              {tr('remove')}
            </button>
          </div>
        ))}
        {errors.metadata?.length ? (
          <div className="field-error" role="alert">
            {errors.metadata.join('; ')}
          </div>
        ) : null}
        <button type="button" className="secondary" onClick={() => set('metadata', [...values.metadata, { key: '', value: '' }])}>
          {tr('addRow')}
        </button>
      </fieldset>
    </>
  );
}

/** Said before anything is typed: this host will not send with the active live profile. */
export function LiveRefusedNotice() {
  const { t: tr } = useTranslation('form');
  const refused = useProfiles((s) => liveRefused(s));
  const name = useProfiles((s) => activeProfile(s)?.name ?? '');
  if (!refused) return null;
  return (
    <div className="notice notice-live" role="alert" aria-label={tr('liveRefused.title', { name })}>
      <strong>{tr('liveRefused.title', { name })}</strong>
      <p>{tr('liveRefused.next')}</p>
    </div>
  );
}
