import type { Page, Worker } from '@playwright/test';

/**
 * Fault injection from outside the app: the tests reach into the page's inference workers with
 * Playwright (as a driver reset or an out-of-memory kill would), so the production bundle carries
 * no test hooks (e2e/bundle.spec.ts checks that it does not).
 */

const INFERENCE = 'lantern-inference-';

/** A worker's name; ORT's thread-pool workers (em-pthread…) sit in Atomics.wait and never answer. */
function nameOf(worker: Worker): Promise<string> {
  const silent = new Promise<string>((resolve) => setTimeout(() => resolve(''), 1000));
  return Promise.race([worker.evaluate(() => self.name).catch(() => ''), silent]);
}

async function inferenceWorkers(page: Page): Promise<Worker[]> {
  const named = await Promise.all(page.workers().map(async (worker) => ({ worker, name: await nameOf(worker) })));
  return named.filter((w) => w.name.startsWith(INFERENCE)).map((w) => w.worker);
}

/** The running inference worker dies (self.close(), like an OOM kill) right after the next message it receives. */
export async function crashOnNextMessage(page: Page): Promise<void> {
  const workers = await inferenceWorkers(page);
  if (workers.length === 0) throw new Error('no inference worker is running');
  await Promise.all(workers.map((worker) => worker.evaluate(() => {
    self.addEventListener('message', () => setTimeout(() => self.close(), 0), { once: true });
  })));
}

/**
 * Until the returned function is called, every inference worker (running or started later) dies
 * once it has answered init: the moment the page starts watching its liveness lock, so a death
 * is seen at once instead of after the start timeout.
 */
export function crashEveryWorker(page: Page): () => void {
  let active = true;
  const crash = (worker: Worker) => {
    if (!active) return;
    void worker.evaluate(async (prefix) => {
      if (!self.name.startsWith(prefix)) return;
      const lock = `lantern-alive:${self.name}`;
      while (!(await navigator.locks.query()).pending?.some((l) => l.name === lock)) await new Promise((r) => setTimeout(r, 5));
      self.close();
    }, INFERENCE).catch(() => undefined);
  };
  page.on('worker', crash);
  page.workers().forEach(crash);
  return () => {
    active = false;
    page.off('worker', crash);
  };
}

/**
 * Destroys ORT's GPU device, as a driver reset would, the next time the inference worker uses it
 * (ORT records every run's work in a fresh command encoder).
 */
export async function loseGpuDeviceOnNextRun(page: Page): Promise<void> {
  const [worker] = await inferenceWorkers(page);
  if (!worker) throw new Error('no inference worker is running');
  await worker.evaluate(() => {
    type Device = { destroy(): void };
    const proto = (globalThis as unknown as { GPUDevice: { prototype: { createCommandEncoder(this: Device, ...args: unknown[]): unknown } } }).GPUDevice.prototype;
    const original = proto.createCommandEncoder;
    proto.createCommandEncoder = function (this: Device, ...args: unknown[]) {
      proto.createCommandEncoder = original;
      this.destroy();
      return original.apply(this, args);
    };
  });
}
