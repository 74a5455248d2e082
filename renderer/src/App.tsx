/** The console's window: environment marker, navigation, and the open screen. */
import { useEffect, useLayoutEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure, PaydeskApi } from '../../shared/api';
import { describeFailure } from './messages/errors';
import { describeNotice } from './messages/notices';
import { ErrorNotice, Loading, profileName } from './components/common';
import { ApprovalsBadge } from './components/ApprovalsBadge';
import { StoresContext, createStores, useApprovals, useProfiles, useUi, useWorkspace, wirePushEvents, type Stores } from './stores';
import { activeProfile, liveRefused } from './stores/profiles';
import type { Screen } from './stores/ui';
import { applyLanguage, currentLanguage } from './i18n';
import { applyTheme } from './theme';
import { useChunk } from './chunks';
import { SCREEN_CHUNKS, preloadScreen } from './screenChunks';
import { WorkspaceBadge, WorkspaceFaultBanner, useWorkspaceStatusAtStart } from './components/WorkspaceBar';

const NAV: Screen[] = ['overview', 'payment', 'payout', 'batches', 'lookup', 'timeline', 'history', 'reconcile', 'approvals', 'audit', 'sandbox', 'settings'];
/** A workspace admin's nav has People after Audit (the team's screens); no one else's does. */
const ADMIN_NAV: Screen[] = NAV.flatMap((item): Screen[] => (item === 'audit' ? ['audit', 'people'] : [item]));

/** The open screen, drawn as soon as its chunk is in (no Suspense: see chunks.ts). */
function ScreenView({ screen }: { screen: Screen }) {
  const { t } = useTranslation();
  const View = useChunk(SCREEN_CHUNKS[screen]);
  return View ? <View /> : <Loading label={t('loading.screen')} />;
}

/** Always on screen: which environment every action goes to, in colour and in words. */
function EnvironmentMarker() {
  const { t } = useTranslation(['common', 'settings']);
  const profile = useProfiles((s) => activeProfile(s));
  const profiles = useProfiles((s) => s.profiles);
  const activate = useProfiles((s) => s.activate);
  const refused = useProfiles((s) => liveRefused(s));
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  if (!profile) return null;
  const live = profile.environment === 'live';
  // A live profile this host refuses says so where the environment is always shown.
  const label = refused ? t('settings:live.markerLabel') : live ? t('marker.liveLabel') : t('marker.sandboxLabel');
  return (
    <div className={`env-bar ${live ? 'env-bar-live' : 'env-bar-sandbox'}`}>
      <span className="env-marker" role="status" aria-label={label} data-environment={profile.environment} data-refused={refused || undefined}>
        {refused ? t('settings:live.marker') : live ? t('marker.live') : t('marker.sandbox')}
      </span>
      <label className="profile-switch">
        <span>{t('marker.profile')}</span>
        <select
          aria-label={t('marker.activeProfile')}
          value={profile.id}
          onChange={(e) => {
            setFailure(null);
            void activate(e.target.value).then((result) => !result.ok && setFailure(result.error));
          }}
        >
          {profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {t('marker.option', { name: profileName(p), environment: t(`environment.${p.environment}`) })}
            </option>
          ))}
        </select>
      </label>
      {failure ? (
        <span className="notice notice-error" role="alert">
          {describeFailure(failure).title} {describeFailure(failure).next}
        </span>
      ) : null}
    </div>
  );
}

/** What main asked to tell the user at start (a corrupt settings file kept aside, unknown outcomes...). */
function StartNotices() {
  const { t } = useTranslation();
  const notices = useProfiles((s) => s.info?.notices);
  const [dismissed, setDismissed] = useState<string[]>([]);
  const shown = (notices ?? []).filter((n) => !dismissed.includes(n.message));
  if (shown.length === 0) return null;
  return (
    <div className="notices" role="region" aria-label={t('notices.region')}>
      {shown.map((notice) => (
        <div key={notice.message} className="notice notice-warn">
          <span>{describeNotice(notice)}</span>
          <button type="button" className="secondary small" onClick={() => setDismissed((d) => [...d, notice.message])} aria-label={t('notices.dismissLabel', { message: describeNotice(notice) })}>
            {t('notices.dismiss')}
          </button>
        </div>
      ))}
    </div>
  );
}

/**
 * Follows the language chosen in Settings (or the system's). The screens are keyed by language, so
 * text computed outside React (error sentences, money) is rendered again after a switch.
 */
function LanguageRoot() {
  const preference = useProfiles((s) => s.info?.language ?? 'system');
  const theme = useProfiles((s) => s.info?.theme);
  // Before paint: a theme chosen in Settings shows in the same frame. Until app:info answers, the
  // theme boot.ts applied from its mirror stays.
  useLayoutEffect(() => {
    if (theme) applyTheme(theme);
  }, [theme]);
  const [language, setLanguage] = useState(currentLanguage);
  useEffect(() => {
    let live = true;
    void applyLanguage(preference).then((applied) => live && setLanguage(applied));
    return () => {
      live = false;
    };
  }, [preference]);
  return <Shell key={language} />;
}

function Shell() {
  const { t } = useTranslation();
  const screen = useUi((s) => s.screen);
  const journalId = useUi((s) => s.journalId);
  const navigate = useUi((s) => s.navigate);
  // A screen opens at its top, not at the previous screen's scroll position.
  useLayoutEffect(() => {
    window.scrollTo(0, 0);
  }, [screen, journalId]);
  const status = useProfiles((s) => s.status);
  const error = useProfiles((s) => s.error);
  const live = useProfiles((s) => activeProfile(s)?.environment === 'live');
  const version = useProfiles((s) => s.info?.version);
  useWorkspaceStatusAtStart();
  // A workspace not open says so once, in its banner, with what to do.
  const workspaceFault = useWorkspace((s) => s.status?.store === 'workspace' && s.status.state === 'fault');
  const isAdmin = useApprovals((s) => s.available && s.roles.includes('admin'));
  return (
    <div className={`app ${live ? 'app-live' : 'app-sandbox'}`}>
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true">◆</span> {t('brand')}
          {version ? <span className="muted small"> v{version}</span> : null}
        </div>
        <WorkspaceBadge />
        <EnvironmentMarker />
      </header>
      <div className="body">
        <nav className="sidebar" aria-label={t('nav.label')}>
          <ul>
            {(isAdmin ? ADMIN_NAV : NAV).map((item) => (
              <li key={item}>
                <button type="button" aria-current={screen === item ? 'page' : undefined} onClick={() => navigate(item)} onPointerEnter={() => preloadScreen(item)} onFocus={() => preloadScreen(item)}>
                  {t(`nav.${item}`)}
                  {item === 'approvals' ? <ApprovalsBadge /> : null}
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <main className="content">
          <WorkspaceFaultBanner />
          <StartNotices />
          {workspaceFault ? null : status === 'error' && error ? (
            <ErrorNotice failure={error} title={t('loading.profilesFailed')} />
          ) : status !== 'ready' ? (
            <Loading label={t('loading.starting')} />
          ) : (
            <ScreenView screen={screen} />
          )}
        </main>
      </div>
    </div>
  );
}

export function App({ api, stores: given }: { api: PaydeskApi; stores?: Stores }) {
  const stores = useMemo(() => given ?? createStores(api), [api, given]);
  useEffect(() => {
    const off = wirePushEvents(api, stores);
    // main.tsx has usually asked already, before anything was drawn: that request is taken.
    void stores.profiles.getState().load({ reuseStarted: true });
    return off;
  }, [api, stores]);
  return (
    <StoresContext.Provider value={stores}>
      <LanguageRoot />
    </StoresContext.Provider>
  );
}
