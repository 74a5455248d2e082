/** New batch: the template download and the drop zone / file picker for the CSV. */
import { useRef, useState, type ReactNode } from 'react';
import { BATCH_COLUMNS } from '../../../shared/api';
import { Trans, useTranslation } from 'react-i18next';
import { ErrorNotice, Spinner } from '../components/common';
import { formatCount } from '../format/money';
import { useBatch, useProfiles } from '../stores';
import { translateFileError } from '../messages/batchFile';
import { downloadCsv } from '../components/download';
import { SendRefusedNote, useMaySend } from '../components/WorkspaceBar';
import { fieldMessageKey, translateFieldError } from '../messages/fields';

/** Larger files are refused in the page, before they are read (main refuses them too: batches:import). */
export const MAX_CSV_BYTES = 8 * 1024 * 1024;
/**
 * The browser host reads request bodies up to 256 KiB (electron/browser-host/server.ts
 * MAX_BODY_BYTES); the file travels inside JSON, so a little less is left for it.
 */
export const BROWSER_HOST_MAX_CSV_BYTES = 240 * 1024;

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${formatCount(Math.ceil(bytes / (1024 * 1024)))} MB` : `${formatCount(Math.ceil(bytes / 1024))} KB`;
}

/** The file as UTF-8 text; a BOM is kept for main's reader to remove (FileReader works in every host). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => (typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('not text')));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsText(file, 'utf-8');
  });
}

/** Column names in a file error are identifiers of the format: shown as code, as in the template hint. */
const COLUMN_ID = new RegExp(`\\b(${[...BATCH_COLUMNS, 'meta\\.KEY', 'meta\\.CLÉ'].join('|')})(?![\\w.])`, 'g');
function withColumnCodes(text: string): ReactNode[] {
  return text.split(COLUMN_ID).map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : part));
}

export function BatchImport() {
  const { t } = useTranslation('batch');
  const importFile = useBatch((s) => s.importFile);
  const importing = useBatch((s) => s.importing);
  const template = useBatch((s) => s.template);
  const methods = useProfiles((s) => s.methods);
  const transport = useProfiles((s) => s.info?.transport);
  const [method, setMethod] = useState('');
  const paymentMethod = method || methods[0] || '';
  const [over, setOver] = useState(false);
  const [localError, setLocalError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  async function take(file: File | undefined) {
    if (!file) return;
    setLocalError(null);
    if (!/\.csv$/i.test(file.name) && file.type !== 'text/csv') {
      setLocalError(t('importer.notCsv', { name: file.name }));
      return;
    }
    if (file.size > MAX_CSV_BYTES) {
      setLocalError(t('importer.tooBig', { name: file.name, size: sizeText(file.size), max: sizeText(MAX_CSV_BYTES) }));
      return;
    }
    if (transport === 'browser' && file.size > BROWSER_HOST_MAX_CSV_BYTES) {
      setLocalError(t('importer.tooBigForBrowser', { name: file.name, size: sizeText(file.size), max: sizeText(BROWSER_HOST_MAX_CSV_BYTES) }));
      return;
    }
    if (file.size === 0) {
      setLocalError(t('importer.empty', { name: file.name }));
      return;
    }
    let text: string;
    try {
      text = await readText(file);
    } catch {
      setLocalError(t('importer.unreadable', { name: file.name }));
      return;
    }
    await importFile(file.name, text, paymentMethod || undefined);
  }

  async function downloadTemplate() {
    const file = await template();
    if (file) downloadCsv(file.filename, file.csv);
  }

  const busy = importing.status === 'reading';
  // Importing records a batch to send: a login without finance is told why it may not.
  const mayImport = useMaySend();
  return (
    <section className="batch-import" aria-labelledby="batch-import-title">
      <div className="card">
        <h2 id="batch-import-title">{t('importer.heading')}</h2>
        <SendRefusedNote />
        {methods.length > 0 ? (
          <div className="field">
            <label htmlFor="batch-method">{t('importer.method')}</label>
            <select id="batch-method" value={paymentMethod} onChange={(e) => setMethod(e.target.value)} aria-describedby="batch-method-hint">
              {methods.map((code) => (
                <option key={code} value={code}>
                  {code}
                </option>
              ))}
            </select>
            <span className="hint" id="batch-method-hint">
              {t('importer.methodHint')}
            </span>
          </div>
        ) : null}
        <div
          className="drop-zone"
          data-over={over}
          onDragOver={(event) => {
            event.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={(event) => {
            event.preventDefault();
            setOver(false);
            if (mayImport) void take(event.dataTransfer.files[0]);
          }}
        >
          <strong>{t('importer.drop')}</strong>
          <span className="muted">{t('importer.or')}</span>
          <input
            ref={input}
            id="batch-file"
            type="file"
            accept=".csv,text/csv"
            aria-label={t('importer.pickLabel')}
            disabled={busy || !mayImport}
            onChange={(event) => {
              const file = event.target.files?.[0];
              event.target.value = '';
              void take(file);
            }}
          />
          <button type="button" className="primary" onClick={() => input.current?.click()} disabled={busy || !mayImport}>
            {busy ? <Spinner label={t('importer.reading', { name: importing.fileName ?? '' })} /> : null}
            {t('importer.pick')}
          </button>
          <span className="hint">{t('importer.formats')}</span>
        </div>
        {busy ? (
          <p className="muted" role="status">
            {t('importer.reading', { name: importing.fileName ?? '' })}
          </p>
        ) : null}
        {localError ? (
          <div className="notice notice-error" role="alert">
            {localError}
          </div>
        ) : null}
        {importing.error ? (
          <ErrorNotice failure={importing.error} title={t('importer.failed')} next={importing.error.fields?.text?.length ? t('importer.fixFile') : undefined} />
        ) : null}
        {importing.error?.fields?.text?.length ? (
          <ul className="field-error" aria-label={t('importer.problems')}>
            {importing.error.fields.text.map((problem) => (
              <li key={problem}>{withColumnCodes(fieldMessageKey(problem) ? translateFieldError(problem) : translateFileError(problem))}</li>
            ))}
          </ul>
        ) : null}
      </div>
      <div className="card template-card">
        <h2>{t('importer.templateHeading')}</h2>
        <button type="button" className="secondary" onClick={() => void downloadTemplate()}>
          {t('importer.template')}
        </button>
        <p className="hint">
          {/* Column names are identifiers of the file format: shown as code, in any language. */}
          <Trans t={t} i18nKey="importer.templateHint" components={{ c: <code /> }} />
        </p>
      </div>
    </section>
  );
}
