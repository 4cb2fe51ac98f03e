import type { Workbox } from 'workbox-window';
import { Listeners } from '../runtime/index.ts';

/**
 * Service-worker lifecycle as seen by the UI: whether a new app version is waiting, and
 * whether the browser offers installation. Updates apply only when the user accepts, and
 * only once no classification is running (the caller passes `whenIdle`).
 */
export interface PwaState {
  updateWaiting: boolean;
  canInstall: boolean;
  installed: boolean;
}

interface BeforeInstallPromptEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

type Listener = (state: PwaState) => void;

export class PwaController {
  private state: PwaState = { updateWaiting: false, canInstall: false, installed: false };
  private readonly listeners = new Listeners<[PwaState]>();
  private workbox?: Workbox;
  private installEvent?: BeforeInstallPromptEvent;
  private resolveRegistered!: (registration: ServiceWorkerRegistration | undefined) => void;
  /**
   * Settles once registration was tried: the registration, or undefined when there is no service
   * worker (development build, unsupported, refused). Without one nothing is kept offline.
   */
  readonly registered = new Promise<ServiceWorkerRegistration | undefined>((resolve) => (this.resolveRegistered = resolve));

  start(): void {
    addEventListener('beforeinstallprompt', (event) => {
      event.preventDefault();
      this.installEvent = event as BeforeInstallPromptEvent;
      this.set({ canInstall: true });
    });
    addEventListener('appinstalled', () => this.set({ canInstall: false, installed: true }));
    if (!import.meta.env.PROD || !('serviceWorker' in navigator)) {
      this.resolveRegistered(undefined);
      return;
    }
    void this.register();
  }

  /** workbox-window is fetched here rather than with the first screen: registering can wait. */
  private async register(): Promise<void> {
    const workbox = await this.registerWorkbox();
    this.resolveRegistered(workbox && await navigator.serviceWorker.getRegistration().catch(() => undefined));
    // Check for a new version whenever the app comes back to the foreground (no polling).
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && navigator.onLine) void this.workbox?.update();
    });
  }

  private async registerWorkbox(): Promise<Workbox | undefined> {
    let workbox: Workbox;
    try {
      workbox = new (await import('workbox-window')).Workbox('/sw.js', { scope: '/' });
    } catch {
      return undefined;
    }
    this.workbox = workbox;
    workbox.addEventListener('waiting', () => this.set({ updateWaiting: true }));
    // Another tab accepted the update: reload so this one runs the same code.
    workbox.addEventListener('controlling', (event) => {
      if (event.isUpdate) location.reload();
    });
    // Registration can be refused (private mode, policies): the app then simply runs online.
    // Asked afterwards rather than taken from register(), which does not always reject then.
    await workbox.register().catch(() => undefined);
    return workbox;
  }

  /**
   * Registers the service worker again when its first install failed (the connection dropped
   * while it precached the app): the browser then drops the registration and tries nothing more.
   * A Workbox instance registers once, so this is a new one.
   */
  async resume(): Promise<void> {
    if (!this.workbox) return;
    const registration = await navigator.serviceWorker.getRegistration().catch(() => undefined);
    if (registration?.active || registration?.waiting || registration?.installing) return;
    await this.registerWorkbox();
  }

  /** Applies a waiting update once `whenIdle` resolves; the page reloads on 'controlling'. */
  async applyUpdate(whenIdle: () => Promise<void>): Promise<void> {
    await whenIdle();
    this.workbox?.messageSkipWaiting();
  }

  async promptInstall(): Promise<void> {
    const event = this.installEvent;
    if (!event) return;
    this.installEvent = undefined;
    await event.prompt();
    const choice = await event.userChoice;
    this.set({ canInstall: false, installed: choice.outcome === 'accepted' });
  }

  /** Calls `listener` with the current state now and with every change. */
  subscribe(listener: Listener): () => void {
    listener(this.state);
    return this.listeners.subscribe(listener);
  }

  private set(patch: Partial<PwaState>): void {
    this.state = { ...this.state, ...patch };
    this.listeners.notify(this.state);
  }
}
