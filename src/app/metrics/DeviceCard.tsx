import type { DeviceReport } from '../../runtime/index.ts';
import { t, tCount } from '../i18n/index.ts';
import { adapterProblemText, backendReasonText } from '../i18n/runtime-text.ts';

interface UserAgentData {
  brands?: { brand: string; version: string }[];
  platform?: string;
  mobile?: boolean;
}

/** The browser, from client hints where present (the UA string is frozen in Chromium). */
function browserName(nav: Navigator & { userAgentData?: UserAgentData } = navigator): string {
  const data = nav.userAgentData;
  const brands = data?.brands?.filter((b) => !/not.?a.?brand/i.test(b.brand)).map((b) => `${b.brand} ${b.version}`);
  if (brands?.length) return `${brands.join(', ')}${data?.platform ? ` · ${data.platform}` : ''}${data?.mobile ? ' · mobile' : ''}`;
  return nav.userAgent;
}

/**
 * Backend in use and why, adapter, threads, the workers running (under sustained load, the
 * backlog workers too), isolation, browser: what decides the speed.
 */
export function DeviceCard({ device, backendsUsed, workerThreads }: { device: DeviceReport | null; backendsUsed: string[]; workerThreads: number[] }) {
  if (!device) return <section class="card"><h3>{t('metrics.device.heading')}</h3><p aria-busy="true">{t('metrics.na.pending')}</p></section>;
  const a = device.adapter;
  const adapter = a.available
    ? `${[a.vendor, a.architecture].filter(Boolean).join(' ') || t('metrics.device.unknownAdapter')}${a.isFallbackAdapter ? ` (${t('metrics.device.software')})` : ''}`
    : t('metrics.device.noAdapter', { reason: adapterProblemText(a.unavailableReason ?? { kind: 'null-adapter' }) });
  const facts: [string, string, string][] = [
    ['backend', t('metrics.device.backend'), device.choice.backend.toUpperCase()],
    ['reason', t('metrics.device.reason'), backendReasonText(device.choice.reason)],
    ['used', t('metrics.device.used'), backendsUsed.map((b) => b.toUpperCase()).join(', ') || '–'],
    ['adapter', t('metrics.device.adapter'), adapter],
    ['threads', t('metrics.device.threads'), t('metrics.device.threadsValue', { threads: device.choice.threads, cores: tCount('cores', device.hardwareConcurrency) })],
    ['workers', t('metrics.device.workers'), workerThreads.length > 0 ? t('metrics.device.workersValue', { count: workerThreads.length, threads: workerThreads.join(' + ') }) : t('metrics.device.noWorkers')],
    ['isolated', t('metrics.device.isolated'), t(device.crossOriginIsolated ? 'metrics.device.yes' : 'metrics.device.no')],
    ['ort', t('metrics.device.ort'), device.ortVersion],
    ['browser', t('metrics.device.browser'), browserName()],
  ];
  return (
    <section class="card">
      <h3>{t('metrics.device.heading')}</h3>
      <dl class="facts" data-testid="device-card">
        {facts.map(([id, label, value]) => (
          <div class="fact" key={id}><dt>{label}</dt><dd data-testid={`device-${id}`}>{value}</dd></div>
        ))}
      </dl>
    </section>
  );
}
