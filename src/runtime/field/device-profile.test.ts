import { describe, expect, it } from 'vitest';
import { isLowEnd, runtimeDefaults } from './device-profile.ts';

describe('runtimeDefaults', () => {
  it('gives a 2 GB or 2-core phone small batches, one thread and a short metrics window', () => {
    for (const hints of [{ deviceMemory: 2, hardwareConcurrency: 8 }, { deviceMemory: 4, hardwareConcurrency: 2 }, { hardwareConcurrency: 2 }, { hardwareConcurrency: 1, deviceMemory: 8 }, { deviceMemory: 0.5 }]) {
      const d = runtimeDefaults(hints);
      expect(d).toMatchObject({ lowEnd: true, threads: 1, backlogWorkers: 0 });
      expect(d.maxBatch).toBeLessThan(runtimeDefaults({}).maxBatch);
      expect(d.metricsWindowMs).toBeLessThan(runtimeDefaults({}).metricsWindowMs);
    }
  });

  it('leaves capable or unknown devices on the normal defaults', () => {
    expect(isLowEnd({ deviceMemory: 4, hardwareConcurrency: 4 })).toBe(false);
    expect(isLowEnd({})).toBe(false);
    // A 2-core machine with plenty of memory (a VM, a laptop) keeps full-size defaults.
    expect(isLowEnd({ deviceMemory: 8, hardwareConcurrency: 2 })).toBe(false);
    expect(runtimeDefaults({ deviceMemory: 8, hardwareConcurrency: 8 })).toEqual({ lowEnd: false, maxBatch: 32, maxQueued: 256, metricsWindowMs: 300_000 });
  });
});
