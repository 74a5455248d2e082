/**
 * The console's first frame, drawn without React: the shell and the Overview's figures (today's and
 * the last 7 days' cards and tables), in the markup and classes the React screens draw, from the
 * one `overview:get` answer the app then takes over (issue 28: the page drew nothing until React,
 * i18next, the stores and the shell, ~750 kB of script, had been evaluated; this needs ~20 kB).
 * React replaces it in one commit with the same figures (main.tsx waits for them before its first
 * render), so nothing flashes. Not interactive: it is `inert` until React is there.
 * Text is only ever set as text (never HTML): a profile's name is the user's own input.
 */
import type { OverviewResult, OverviewSummary } from '../../shared/api';
import { LOCAL_SANDBOX_PROFILE_ID } from '../../shared/api/types';
import type { Language } from '../../shared/i18n/types';
import enCommon from '../../shared/i18n/en/common';
import enComponents from '../../shared/i18n/en/components';
import enOverview from '../../shared/i18n/en/overview';
import frCommon from '../../shared/i18n/fr/common';
import frComponents from '../../shared/i18n/fr/components';
import frOverview from '../../shared/i18n/fr/overview';
import { formatCount } from './format/money';
import { formatDateTime } from './format/time';
import { setLocaleFor } from './i18n/locale';
import { amountsText, formatPercent } from './screens/overviewFormat';

/** The screens in the sidebar, in App.tsx's order (test/renderer/first-frame.test.ts holds them equal). */
export const FIRST_FRAME_NAV = ['overview', 'payment', 'payout', 'batches', 'lookup', 'timeline', 'history', 'reconcile', 'approvals', 'audit', 'sandbox', 'settings'] as const;

type Catalogue = { readonly [key: string]: string | Catalogue };
const CATALOGUES: Record<Language, Record<'common' | 'components' | 'overview', Catalogue>> = {
  en: { common: enCommon, components: enComponents, overview: enOverview },
  fr: { common: frCommon, components: frComponents, overview: frOverview },
};

/** i18next's lookup, the part the first frame uses: `ns:a.b`, `{{name}}`, and `_one`/`_other` plurals by `count`. */
export function translator(language: Language): (key: string, values?: Record<string, string | number>) => string {
  const plurals = new Intl.PluralRules(language);
  const find = (namespace: string, path: string): string | undefined => {
    let node: string | Catalogue | undefined = CATALOGUES[language][namespace as 'common'];
    for (const part of path.split('.')) node = typeof node === 'object' ? node[part] : undefined;
    return typeof node === 'string' ? node : undefined;
  };
  return (key, values = {}) => {
    const [namespace, path] = key.includes(':') ? (key.split(':') as [string, string]) : ['overview', key];
    const count = values.count;
    const text = (typeof count === 'number' ? find(namespace, `${path}_${plurals.select(count)}`) ?? find(namespace, `${path}_other`) : undefined) ?? find(namespace, path) ?? key;
    return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
  };
}

type Child = Node | string | null;
function h(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) if (child !== null) element.append(child);
  return element;
}

function loading(label: string): HTMLElement {
  return h('div', { class: 'loading' }, h('span', { class: 'spinner', role: 'progressbar', 'aria-label': label }), ' ', h('span', {}, label));
}

type T = ReturnType<typeof translator>;
interface Row {
  label: Child[];
  count: number;
  amounts: OverviewSummary['total']['amounts'];
}

function countTable(t: T, heading: string, rows: Row[], currency: string, empty?: string): HTMLElement {
  const head = h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, heading), h('th', { scope: 'col', class: 'num' }, t('column.count')), h('th', { scope: 'col', class: 'num' }, t('column.amount'))));
  const body =
    rows.length === 0 && empty
      ? h('tbody', {}, h('tr', {}, h('td', { colspan: '3', class: 'muted' }, empty)))
      : h('tbody', {}, ...rows.map((row) => h('tr', {}, h('th', { scope: 'row' }, ...row.label), h('td', { class: 'num' }, formatCount(row.count)), h('td', { class: 'num' }, amountsText(row.amounts, currency)))));
  return h('table', { class: 'table ov-table' }, head, body);
}

/** OverviewScreen.tsx's PeriodCard. */
function periodCard(t: T, id: string, title: string, summary: OverviewSummary, currency: string): HTMLElement {
  const { success } = summary;
  const rate = h(
    'div',
    { class: 'ov-rate', title: t('successHelp') },
    h('span', { class: 'ov-label' }, t('successRate')),
    ' ',
    h('strong', {}, success.rate === null ? '—' : formatPercent(success.rate)),
    ' ',
    h('span', { class: 'muted small' }, success.rate === null ? t('successNone') : t('successDetail', { completed: formatCount(success.completed), final: formatCount(success.final) })),
  );
  const byKind = summary.byKind.map((row) => ({ label: [t(`kind.${row.kind}`)], count: row.count, amounts: row.amounts }));
  const byStatus = summary.byStatus
    .filter((row) => row.count > 0)
    .map((row) => ({ label: [h('span', { class: `ov-dot ov-dot-${row.status}`, 'aria-hidden': 'true' }), ` ${t(`status.${row.status}`)}`], count: row.count, amounts: row.amounts }));
  return h(
    'section',
    { class: 'card ov-period', 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title` }, title),
    h('p', { class: 'ov-big' }, t('transactions', { count: summary.total.count, formatted: formatCount(summary.total.count) })),
    h('p', { class: 'ov-amount' }, amountsText(summary.total.amounts, currency)),
    rate,
    h('h3', {}, t('byKind')),
    countTable(t, t('column.kind'), byKind, currency),
    h('h3', {}, t('byStatus')),
    countTable(t, t('column.status'), byStatus, currency, t('transactions', { count: 0, formatted: formatCount(0) })),
  );
}

/** The stuck card when nothing is stuck; its rows (with Verify) wait for React. */
function stuckCard(t: T, stuck: OverviewResult['stuck']): HTMLElement {
  const minutes = formatCount(stuck.olderThanMinutes);
  const title = h('h2', { id: 'ov-stuck-title' }, t('stuck.title', { minutes }), ' ', stuck.total > 0 ? h('span', { class: 'badge badge-processing' }, formatCount(stuck.total)) : null);
  return h('section', { class: 'card ov-stuck', 'aria-labelledby': 'ov-stuck-title' }, title, stuck.total === 0 ? h('p', { class: 'ov-empty' }, t('stuck.none', { minutes })) : loading(t('loading')));
}

/**
 * Builds the formatters the frame uses (each first Intl format of a page costs 10-45 ms on a busy
 * machine: ICU's data for the locale), while the figures are on their way, not after.
 */
export function prepareFirstFrame(language: Language): void {
  setLocaleFor(language);
  translator(language)('transactions', { count: 1, formatted: formatCount(1) });
  formatPercent(0.5);
  amountsText([], 'XAF');
  formatDateTime(new Date().toISOString());
}

/** The whole first frame: App.tsx's shell around OverviewScreen.tsx's figures. */
export function firstFrame(data: OverviewResult, language: Language, version?: string): HTMLElement {
  // Numbers and dates in the frame's language (the one the app applies next, too).
  setLocaleFor(language);
  const t = translator(language);
  const { profile } = data;
  const live = profile.environment === 'live';
  const profileName = profile.id === LOCAL_SANDBOX_PROFILE_ID ? t('components:localSandbox') : profile.name;
  const currency = data.week.total.amounts[0]?.currency ?? 'XAF';
  const topbar = h(
    'header',
    { class: 'topbar' },
    h('div', { class: 'brand' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '◆'), ` ${t('common:brand')}`, version ? h('span', { class: 'muted small' }, ` v${version}`) : null),
    h(
      'div',
      { class: `env-bar ${live ? 'env-bar-live' : 'env-bar-sandbox'}` },
      h('span', { class: 'env-marker', role: 'status', 'aria-label': t(live ? 'common:marker.liveLabel' : 'common:marker.sandboxLabel'), 'data-environment': profile.environment }, t(live ? 'common:marker.live' : 'common:marker.sandbox')),
      // The active profile only (the list comes with the app): the bar keeps its height, nothing moves when React draws it.
      h(
        'label',
        { class: 'profile-switch' },
        h('span', {}, t('common:marker.profile')),
        h('select', { 'aria-label': t('common:marker.activeProfile'), disabled: '' }, h('option', {}, t('common:marker.option', { name: profileName, environment: t(`common:environment.${profile.environment}`) }))),
      ),
    ),
  );
  const nav = h(
    'nav',
    { class: 'sidebar', 'aria-label': t('common:nav.label') },
    h('ul', {}, ...FIRST_FRAME_NAV.map((item) => h('li', {}, h('button', { type: 'button', ...(item === 'overview' ? { 'aria-current': 'page' } : {}) }, t(`common:nav.${item}`))))),
  );
  const head = h(
    'header',
    { class: 'screen-head ov-head' },
    h('div', {}, h('h1', { id: 'overview-title' }, t('title')), h('p', { class: 'muted' }, t(data.journal === 'team' ? 'introTeam' : 'intro', { profile: profileName, environment: t(`common:environment.${profile.environment}`) }))),
    h('div', { class: 'ov-refresh' }, h('span', { class: 'muted small' }, t('updated', { time: formatDateTime(data.generatedAt) })), ' ', h('button', { type: 'button', class: 'secondary small' }, ` ${t('refresh')}`)),
  );
  const grid = h(
    'div',
    { class: 'ov-grid' },
    periodCard(t, 'ov-today', t('period.today'), data.today, currency),
    periodCard(t, 'ov-week', t('period.week'), data.week, currency),
    h('div', { class: 'ov-side' }, h('section', { class: 'card ov-balance', 'aria-labelledby': 'ov-balance-title' }, h('h2', { id: 'ov-balance-title' }, t('balance.title')), loading(t('balance.loading'))), stuckCard(t, data.stuck)),
  );
  const screen = h('section', { class: 'screen wide overview', 'aria-labelledby': 'overview-title' }, head, grid, loading(t('loading')));
  // `data-first-frame`: the e2e tests and the bench tell this frame from React's.
  return h('div', { class: `app ${live ? 'app-live' : 'app-sandbox'}`, 'data-first-frame': 'true', inert: '' }, topbar, h('div', { class: 'body' }, nav, h('main', { class: 'content' }, screen)));
}
