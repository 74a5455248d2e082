/**
 * The page's entry: the theme, the one typed API, the first calls, and, when the console opens on
 * the Overview, its figures drawn without React (./firstFrame.ts) as soon as main answers; then
 * the app (./main.tsx: React, i18next, the stores), whose script index.html has the browser fetch
 * beside this one, is run. Why: docs/decisions/first-frame-before-react.md (issue 28).
 */
import type { Channel, OverviewResult, Result } from '../../shared/api';
import { createPaydeskApi } from './api/client';
import { firstFrame, prepareFirstFrame } from './firstFrame';
import { resolveLanguage } from '../../shared/i18n/types';
import { systemTag } from './i18n/locale';
import { parseHash, routeToHash } from './router';
import { callKey, reusingStartedCalls, type StartedCalls } from './startedCalls';
import { localDayBoundaries, OVERVIEW_MARKS } from './stores/overview';
import { applyMirroredTheme } from './theme';
// Every stylesheet the first frame and the app's shell use, in the entry's one file: a stylesheet
// blocks the entry from running, and the app's own (fetched beside its 750 kB of script over the
// browser's six connections) came in last (issue 28 trace: entry fetched at 322 ms, run at 737).
import './theme.css';
import './styles.css';
import './i18n.css';
import './overview.css';
import './workspace.css';

/** Past this without the figures, the app starts anyway (and the first frame is not drawn). */
const FIGURES_WAIT_MS = 1500;

applyMirroredTheme();
// Takes the token out of the address (browser host) before anything else.
const api = createPaydeskApi(window);
const started: StartedCalls = new Map();
function start<C extends Channel>(channel: C, input: Record<string, unknown>) {
  const answer = api.invoke(channel, input as never);
  started.set(callKey(channel, input), answer as Promise<Result<unknown>>);
  return answer;
}

const opening = parseHash(window.location.hash)?.screen ?? 'overview';
// The address names the screen from the first frame on, as the router will (it left the address empty,
// the token just taken out of it, until the app ran).
if (!parseHash(window.location.hash)) window.history.replaceState(window.history.state, '', routeToHash({ screen: 'overview', journalId: null, params: {} }));
let figures: Promise<Result<OverviewResult>> | null = null;
if (opening === 'overview') {
  performance.mark(OVERVIEW_MARKS.request);
  figures = start('overview:get', { dayBoundaries: localDayBoundaries(new Date()) }) as Promise<Result<OverviewResult>>;
}
// The shell draws the screen once the profiles are in (stores/profiles.ts asks for both together).
// app:info before the profiles: the first frame waits for it (the host answers in turn).
const info = start('app:info', {});
start('profiles:list', {});
// In the system's language: the one app:info names is nearly always it (else it costs a little more).
if (figures) prepareFirstFrame(resolveLanguage('system', systemTag()));

/**
 * The app's script files (named in index.html by vite.config.ts, not fetched by it): preloaded once
 * the first calls are answered, so they wait for no script on the browser's six connections to the
 * host, and their compile comes after the answer (issue 28: the calls were answered 50 ms after main
 * had, behind ~130 kB gzip of preloads).
 */
let appScriptsAsked = false;
function fetchAppScripts(): void {
  if (appScriptsAsked) return;
  appScriptsAsked = true;
  for (const named of document.querySelectorAll<HTMLLinkElement>('link[rel="paydesk-app-script"]')) {
    const preload = document.createElement('link');
    preload.rel = 'modulepreload';
    preload.crossOrigin = '';
    preload.href = named.href;
    document.head.append(preload);
  }
}

let appStarted = false;
function startApp(drawn: boolean): void {
  if (appStarted) return;
  appStarted = true;
  fetchAppScripts();
  void import('./main').then(({ startApp: run }) => run(reusingStartedCalls(api, started), { firstFrame: drawn }));
}

if (!figures) startApp(false);
else {
  const late = window.setTimeout(() => startApp(false), FIGURES_WAIT_MS);
  // app:info says the language chosen in Settings and the version the shell shows beside the name.
  void figures.then(() => performance.mark(OVERVIEW_MARKS.data));
  void Promise.all([figures, info]).then(([result, about]) => {
    if (appStarted) return;
    window.clearTimeout(late);
    fetchAppScripts();
    const root = document.getElementById('root');
    if (!result.ok || !about.ok || !root) return startApp(false);
    const language = resolveLanguage(about.value.language, systemTag());
    root.replaceChildren(firstFrame(result.value, language, about.value.version));
    document.documentElement.lang = language;
    // The frame after this one is painted: the figures are on screen (the mark the bench reads, as
    // OverviewScreen.tsx sets it for React's frame). The app's script runs after that paint.
    requestAnimationFrame(() => {
      performance.mark(OVERVIEW_MARKS.figures);
      window.setTimeout(() => startApp(true), 0);
    });
  });
}
