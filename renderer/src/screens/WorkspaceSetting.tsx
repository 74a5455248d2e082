/**
 * Settings → Team workspace: where this console records. The form connects once to test (who you
 * are and your role, or the fault's words), then "Use this workspace" re-opens the console on it.
 * The password goes to main once (Test connection or Use) and is kept in the system keychain there;
 * it is never shown back, and Use after a test needs it no more.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isLocalWorkspaceHost, workspaceConnectionInputSchema, type ApiFailure, type WorkspaceConnectionInput, type WorkspaceStatus, type WorkspaceWho } from '../../../shared/api';
import { toFieldErrors, type FieldErrors } from '../../../shared/contract';
import { LeaveWorkspaceDialog } from '../components/LeaveWorkspaceDialog';
import { ErrorNotice, Field, describedBy } from '../components/common';
import { useWorkspace } from '../stores';

interface FormValues {
  host: string;
  port: string;
  database: string;
  user: string;
  tls: 'verify' | 'off';
  ca: { name: string; text: string } | null;
  password: string;
}

function initialValues(status: WorkspaceStatus | null): FormValues {
  // On this desktop only: the workspace it left, so choosing it again needs the password at most.
  const place = status?.store === 'workspace' ? status.place : status?.last;
  if (place) {
    return { host: place.host, port: String(place.port), database: place.database, user: place.user, tls: place.tls, ca: null, password: '' };
  }
  return { host: '127.0.0.1', port: '5432', database: 'paydesk_team', user: '', tls: 'off', ca: null, password: '' };
}

/** The roles in the reader's words. */
export function useRoleWords(): (who: Pick<WorkspaceWho, 'roles'>) => string {
  const { t } = useTranslation('workspace');
  return (who) => who.roles.map((role) => t(`role.${role}`)).join(', ');
}

export function WorkspaceSetting({ idPrefix = 'ws' }: { idPrefix?: string }) {
  const { t } = useTranslation('workspace');
  const status = useWorkspace((s) => s.status);
  const test = useWorkspace((s) => s.test);
  const use = useWorkspace((s) => s.use);
  const useDesktop = useWorkspace((s) => s.useDesktop);
  const roleWords = useRoleWords();
  const [values, setValues] = useState<FormValues>(() => initialValues(status));
  // The status may arrive after the form is drawn (a reload): its place fills the fields once, unless the person typed first.
  const [filledFrom, setFilledFrom] = useState<WorkspaceStatus | null>(status);
  const [typed, setTyped] = useState(false);
  if (status !== filledFrom) {
    setFilledFrom(status);
    if (!typed && filledFrom === null) setValues(initialValues(status));
  }
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [tested, setTested] = useState<WorkspaceWho | null>(null);
  const [busy, setBusy] = useState<'test' | 'use' | 'desktop' | null>(null);
  const [confirmDesktop, setConfirmDesktop] = useState(false);
  const id = (key: string) => `${idPrefix}-${key}`;

  function change<K extends keyof FormValues>(key: K, value: FormValues[K]) {
    setTyped(true);
    setValues((v) => {
      const next = { ...v, [key]: value };
      // TLS off is offered for this machine only: another host is always verified.
      if (key === 'host' && !isLocalWorkspaceHost(String(value))) next.tls = 'verify';
      return next;
    });
    setTested(null);
  }

  function checked(): WorkspaceConnectionInput | null {
    const parsed = workspaceConnectionInputSchema.safeParse({
      host: values.host,
      port: /^\d+$/.test(values.port.trim()) ? Number(values.port) : values.port,
      database: values.database.trim(),
      user: values.user.trim(),
      tls: values.tls,
      ...(values.ca && values.tls === 'verify' ? { ca: values.ca.text } : {}),
    });
    if (!parsed.success) {
      setErrors(toFieldErrors(parsed.error.issues));
      return null;
    }
    setErrors({});
    return parsed.data;
  }

  async function run(kind: 'test' | 'use') {
    if (busy) return;
    setFailure(null);
    setTested(null);
    const connection = checked();
    if (!connection) return;
    setBusy(kind);
    const password = values.password === '' ? undefined : values.password;
    if (kind === 'test') {
      const result = await test(connection, password);
      if (result.ok) setTested(result.value.who);
      else {
        setFailure(result.error);
        setErrors(result.error.fields ?? {});
      }
    } else {
      const result = await use(connection, password);
      if (!result.ok) setFailure(result.error);
    }
    // The password is not kept in the page once it went to main.
    setValues((v) => ({ ...v, password: '' }));
    setBusy(null);
  }

  async function loadCa(file: File | undefined) {
    if (!file) return;
    const text = file.size > 100_000 ? '' : await file.text();
    if (!text.trimStart().startsWith('-----BEGIN CERTIFICATE-----')) {
      setErrors((e) => ({ ...e, ca: [t('caUnreadable')] }));
      return;
    }
    setErrors((e) => ({ ...e, ca: [] }));
    change('ca', { name: file.name, text });
  }

  const local = isLocalWorkspaceHost(values.host);
  const onWorkspace = status?.store === 'workspace';
  return (
    <section className="card form workspace-setting" aria-labelledby={id('title')}>
      <h2 id={id('title')}>{t('title')}</h2>
      <p className="muted">{t('intro')}</p>
      {status?.store === 'desktop' ? <p role="status">{t('nowDesktop')}</p> : null}
      {status?.store === 'workspace' && status.state !== 'fault' ? (
        <p role="status">{t('nowWorkspace', { database: status.place.database, host: status.place.host, login: status.who.login, roles: roleWords(status.who) })}</p>
      ) : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
      {tested ? (
        <div className="notice notice-info" role="status">
          {t('testedAs', { login: tested.login, roles: roleWords(tested) })} {t('passwordKept')}
        </div>
      ) : null}
      <form noValidate onSubmit={(e) => { e.preventDefault(); void run('use'); }}>
        <div className="grid-2">
          <Field id={id('host')} label={t('host')} errors={errors.host} hint={t('hostHint')}>
            <input id={id('host')} value={values.host} onChange={(e) => change('host', e.target.value)} autoComplete="off" spellCheck={false} {...describedBy(id('host'), errors.host, true)} />
          </Field>
          <Field id={id('port')} label={t('port')} errors={errors.port}>
            <input id={id('port')} value={values.port} inputMode="numeric" onChange={(e) => change('port', e.target.value)} autoComplete="off" {...describedBy(id('port'), errors.port)} />
          </Field>
          <Field id={id('database')} label={t('database')} errors={errors.database}>
            <input id={id('database')} value={values.database} onChange={(e) => change('database', e.target.value)} autoComplete="off" spellCheck={false} {...describedBy(id('database'), errors.database)} />
          </Field>
          <Field id={id('user')} label={t('login')} errors={errors.user} hint={t('loginHint')}>
            <input id={id('user')} value={values.user} onChange={(e) => change('user', e.target.value)} autoComplete="off" spellCheck={false} {...describedBy(id('user'), errors.user, true)} />
          </Field>
          <Field id={id('password')} label={t('password')} errors={errors.password} hint={t('passwordHint')}>
            <input id={id('password')} type="password" value={values.password} onChange={(e) => setValues((v) => ({ ...v, password: e.target.value }))} autoComplete="new-password" {...describedBy(id('password'), errors.password, true)} />
          </Field>
          <Field id={id('tls')} label={t('tls')} errors={errors.tls}>
            <select id={id('tls')} value={values.tls} onChange={(e) => change('tls', e.target.value as FormValues['tls'])} {...describedBy(id('tls'), errors.tls)}>
              {local ? <option value="off">{t('tlsOff')}</option> : null}
              <option value="verify">{t('tlsVerify')}</option>
            </select>
          </Field>
        </div>
        {values.tls === 'verify' ? (
          <Field id={id('ca')} label={t('ca')} errors={errors.ca} hint={values.ca ? t('caLoaded', { name: values.ca.name }) : t('caHint')}>
            <input id={id('ca')} type="file" accept=".pem,.crt,.cer" onChange={(e) => void loadCa(e.target.files?.[0])} {...describedBy(id('ca'), errors.ca, true)} />
          </Field>
        ) : null}
        {values.ca && values.tls === 'verify' ? (
          <button type="button" className="secondary small" onClick={() => change('ca', null)}>{t('caRemove')}</button>
        ) : null}
        <p className="muted small">{t('reopenNote')}</p>
        <div className="actions left">
          <button type="button" className="secondary" disabled={busy !== null} onClick={() => void run('test')}>{busy === 'test' ? t('testing') : t('test')}</button>
          <button type="submit" className="primary" disabled={busy !== null}>{busy === 'use' ? t('using') : t('use')}</button>
          {onWorkspace ? (
            <button type="button" className="secondary" disabled={busy !== null} onClick={() => setConfirmDesktop(true)}>{t('useDesktop')}</button>
          ) : null}
        </div>
      </form>
      {confirmDesktop ? (
        <LeaveWorkspaceDialog
          workspaceOpen={status?.store === 'workspace' && status.state === 'open'}
          onClose={() => setConfirmDesktop(false)}
          onConfirm={() => {
            setBusy('desktop');
            void useDesktop().then((result) => {
              setBusy(null);
              if (!result.ok) setFailure(result.error);
            });
          }}
        />
      ) : null}
    </section>
  );
}
