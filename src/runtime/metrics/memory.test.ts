import { describe, expect, it, vi } from 'vitest';
import type { WasmMemoryReading } from '../protocol.ts';
import { MemorySampler, type MemoryEnvironment } from './memory.ts';

function env(overrides: Partial<MemoryEnvironment> = {}): MemoryEnvironment {
  return { performance: {}, crossOriginIsolated: false, isHidden: () => false, ...overrides };
}
const sources = { workerWasm: async () => [16_777_216, null], modelBytes: async () => 1234 };

describe('MemorySampler', () => {
  it('reports what the browser provides', async () => {
    const sampler = new MemorySampler(sources, {
      env: env({
        performance: { memory: { usedJSHeapSize: 10, jsHeapSizeLimit: 100 } },
        storage: { estimate: async () => ({ usage: 5, quota: 50 }) },
      }),
    });
    const r = await sampler.sample();
    expect(r.jsHeapUsed).toEqual({ bytes: 10 });
    expect(r.jsHeapLimit).toEqual({ bytes: 100 });
    expect(r.workerWasm).toEqual({ bytes: 16_777_216 });
    expect(r.modelBytes).toEqual({ bytes: 1234 });
    expect(r.storageUsage).toEqual({ bytes: 5 });
    expect(r.storageQuota).toEqual({ bytes: 50 });
    expect(sampler.history).toHaveLength(1);
  });

  it('says why each missing figure is missing', async () => {
    const sampler = new MemorySampler({ workerWasm: async () => [], modelBytes: async () => null }, { env: env() });
    const r = await sampler.sample();
    expect(r.jsHeapUsed).toEqual({ bytes: null, reason: 'unsupported' });
    expect(r.storageUsage).toEqual({ bytes: null, reason: 'unsupported' });
    expect(r.workerWasm).toEqual({ bytes: null, reason: 'no-worker' });
    expect(r.userAgentSpecific).toEqual({ bytes: null, reason: 'unsupported' });
    const notIsolated = new MemorySampler(sources, { env: env({ performance: { measureUserAgentSpecificMemory: async () => ({ bytes: 1 }) } }) });
    expect((await notIsolated.sample()).userAgentSpecific).toEqual({ bytes: null, reason: 'not-isolated' });
  });

  it('tells a worker still starting from one whose memory the browser hides', async () => {
    const reading = (readings: WasmMemoryReading[]) => new MemorySampler({ workerWasm: async () => readings, modelBytes: async () => null }, { env: env() }).sample();
    expect((await reading(['starting'])).workerWasm).toEqual({ bytes: null, reason: 'starting' });
    expect((await reading([null])).workerWasm).toEqual({ bytes: null, reason: 'unsupported' });
    // A backlog worker starting beside a running one: the running one's bytes are the figure.
    expect((await reading([16_777_216, 'starting'])).workerWasm).toEqual({ bytes: 16_777_216 });
    expect((await reading([null, 'starting'])).workerWasm).toEqual({ bytes: null, reason: 'starting' });
  });

  it('measures user-agent-specific memory only when isolated, in the background, and not while hidden', async () => {
    vi.useFakeTimers();
    let hidden = true;
    const measure = vi.fn(async () => ({ bytes: 999 }));
    const sampler = new MemorySampler(sources, {
      uaFirstDelayMs: 1000, uaIntervalMs: 60_000, intervalMs: 500,
      env: env({ crossOriginIsolated: true, isHidden: () => hidden, performance: { measureUserAgentSpecificMemory: measure } }),
    });
    sampler.start();
    expect(sampler.latest?.userAgentSpecific ?? { bytes: null, reason: 'pending' }).toEqual({ bytes: null, reason: 'pending' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(measure).not.toHaveBeenCalled();
    hidden = false;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(measure).toHaveBeenCalledTimes(1);
    expect(sampler.latest?.userAgentSpecific.bytes).toBe(999);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(measure).toHaveBeenCalledTimes(1);
    sampler.stop();
    vi.useRealTimers();
  });

  it('measures as soon as sampling starts, and never two at once across a stop and restart', async () => {
    vi.useFakeTimers();
    let answer: (value: { bytes: number }) => void = () => undefined;
    const measure = vi.fn(() => new Promise<{ bytes: number }>((resolve) => { answer = resolve; }));
    const sampler = new MemorySampler(sources, { env: env({ crossOriginIsolated: true, performance: { measureUserAgentSpecificMemory: measure } }) });
    sampler.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(measure).toHaveBeenCalledTimes(1);
    sampler.stop();
    sampler.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(measure).toHaveBeenCalledTimes(1);
    answer({ bytes: 4242 });
    await vi.advanceTimersByTimeAsync(0);
    expect(sampler.latest?.userAgentSpecific).toMatchObject({ bytes: 4242, measuredAt: expect.any(Number) });
    sampler.stop();
    vi.useRealTimers();
  });

  it('keeps a bounded history', async () => {
    const sampler = new MemorySampler(sources, { env: env(), historyLength: 3 });
    for (let i = 0; i < 10; i++) await sampler.sample();
    expect(sampler.history).toHaveLength(3);
  });
});
