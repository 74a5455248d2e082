/**
 * Saves text the console produced (template, invalid rows, report) as a file. The renderer runs as
 * a web page in Electron and in the browser host alike, so a Blob link is the one way for both.
 */
export function downloadCsv(filename: string, csv: string): void {
  downloadText(filename, csv, 'text/csv;charset=utf-8');
}

/** Saves any text file (a sandbox recording: HAR or JSON lines) the same way. */
export function downloadText(filename: string, text: string, type: string): void {
  if (typeof URL.createObjectURL !== 'function') return;
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
