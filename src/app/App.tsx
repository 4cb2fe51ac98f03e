import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { DeviceReport } from '../runtime/index.ts';
import { AppBanner } from './AppBanner.tsx';
import { ClassifyView } from './ClassifyView.tsx';
import { t, tCount, type MessageKey } from './i18n/index.ts';
import { backendReasonText } from './i18n/runtime-text.ts';
import { LanguageSwitch, useLanguage } from './LanguageSwitch.tsx';
import { OfflineBadge, OfflineStatus } from './OfflineStatus.tsx';
import type { Services } from './services.ts';
import { useOnline } from './useOnline.ts';
import type { OpenedRegistry } from '../runtime/store/index.ts';

type View = FunctionComponent<{ services: Services }>;
// Only the Classify view is in the first download; the others (and uPlot's charts) load when opened.
const loadModelsView = (): Promise<View> => import('./ModelsView.tsx').then((m) => m.ModelsView);
const loadMetricsView = (): Promise<View> => import('./MetricsView.tsx').then((m) => m.MetricsView);

/**
 * A view whose code loads when it is first shown (from the precache, in milliseconds); nothing
 * until then. Written here rather than taken from preact/compat's lazy and Suspense, which would
 * add 4.7 KB to the first download for these two lines of behaviour.
 */
function LazyView({ load, services }: { load: () => Promise<View>; services: Services }) {
  // Wrapped: a component put straight into state would be called as a state updater.
  const [loaded, setLoaded] = useState<{ View: View }>();
  useEffect(() => {
    let shown = true;
    void load().then((View) => shown && setLoaded({ View }));
    return () => {
      shown = false;
    };
  }, [load]);
  return loaded ? <loaded.View services={services} /> : null;
}

/**
 * How many notices wait on the Models screen (a version rolled back, quarantined, revoked...): its
 * tab shows the count, so the news reaches a user who stays on Classify, whose answers now come
 * from another version.
 */
function useNoticeCount(models: Promise<OpenedRegistry>): number {
  const [count, setCount] = useState(0);
  useEffect(() => {
    let unsubscribe: (() => void) | undefined;
    let shown = true;
    models.then(({ registry }) => {
      if (!shown) return;
      const update = () => setCount(registry.notices.length);
      update();
      unsubscribe = registry.subscribe((change) => change === 'store' && update());
    }, () => undefined);
    return () => {
      shown = false;
      unsubscribe?.();
    };
  }, [models]);
  return count;
}

const TABS = [
  { id: 'classify', label: 'nav.classify' },
  { id: 'models', label: 'nav.models' },
  { id: 'metrics', label: 'nav.metrics' },
] as const satisfies readonly { id: string; label: MessageKey }[];
type TabId = (typeof TABS)[number]['id'];

/** The tab a URL names (`?tab=models`); Classify when it names none. */
function tabIn(search: string): TabId {
  const wanted = new URLSearchParams(search).get('tab');
  return TABS.find((tab) => tab.id === wanted)?.id ?? 'classify';
}

/**
 * The tab is in the URL and each one the user opens is a history entry, so a phone's Back
 * button returns to the previous tab instead of leaving Lantern, and a reload keeps the tab.
 * The URL's other parameters (?model=, a launch's or a share's) are kept as they are.
 */
function useTabInUrl(): [TabId, (tab: TabId) => void] {
  const [tab, setTab] = useState<TabId>(() => tabIn(location.search));
  useEffect(() => {
    const follow = () => setTab(tabIn(location.search));
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  }, []);
  const open = (next: TabId) => {
    // Tapping the open tab again adds no entry that Back would have to step through.
    if (next === tab) return;
    const url = new URL(location.href);
    url.searchParams.set('tab', next);
    history.pushState(null, '', url);
    setTab(next);
  };
  return [tab, open];
}

export function App({ services }: { services: Services }) {
  const { lantern } = services;
  const online = useOnline();
  // Re-renders the whole tree (no memoised views) when the language changes.
  useLanguage();
  const [tab, openTab] = useTabInUrl();
  const notices = useNoticeCount(services.models);
  const [device, setDevice] = useState<DeviceReport | null>(null);
  useEffect(() => {
    // Starting the worker downloads ORT: on a metered connection, not before the user said yes.
    services.offline.runtimeAllowed.then(() => lantern.device()).then(setDevice, () => setDevice(null));
  }, [lantern, services]);

  return (
    <>
      <header class="topbar">
        <h1>{t('app.title')}</h1>
        <p class="tagline">{t('app.tagline')}</p>
        <LanguageSwitch />
        <p class="status" data-testid="device">
          <span class={online ? 'pill ok' : 'pill warn'} data-testid="online">{online ? t('status.online') : t('status.offline')}</span>
          <OfflineBadge offline={services.offline} />
          {services.profile.lowEnd && <span class="pill" data-testid="low-end" title={t('status.lowEndHint')}>{t('status.lowEnd')}</span>}
          {device && (
            <>
              <span class="pill" data-testid="device-backend" data-backend={device.choice.backend} title={backendReasonText(device.choice.reason)}>
                {t('status.backend', { backend: device.choice.backend.toUpperCase() })}
              </span>
              <span class="pill" data-testid="threads" data-isolated={String(device.crossOriginIsolated)}>
                {t('status.isolated', { threads: device.choice.threads })}
              </span>
            </>
          )}
        </p>
      </header>
      <OfflineStatus offline={services.offline} />
      <AppBanner services={services} />
      <nav class="tabs" aria-label={t('app.title')}>
        {TABS.map((item) => (
          <button
            type="button"
            key={item.id}
            class={tab === item.id ? 'tab active' : 'tab'}
            aria-current={tab === item.id ? 'page' : undefined}
            data-testid={`tab-${item.id}`}
            onClick={() => openTab(item.id)}
          >
            {t(item.label)}
            {item.id === 'models' && notices > 0 && (
              <span class="tab-badge" data-testid="notice-count">
                <span aria-hidden="true">{notices}</span>
                <span class="visually-hidden">{` ${tCount('notices', notices)}`}</span>
              </span>
            )}
          </button>
        ))}
      </nav>
      <main>
        {tab === 'classify' && <ClassifyView lantern={lantern} installed={services.models} />}
        {tab === 'models' && <LazyView load={loadModelsView} services={services} />}
        {tab === 'metrics' && <LazyView load={loadMetricsView} services={services} />}
      </main>
      <footer class="footer" data-testid="build-id" data-build={__BUILD_ID__}>{t('footer.build', { id: __BUILD_ID__ })}</footer>
    </>
  );
}
