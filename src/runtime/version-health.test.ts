import { describe, expect, it } from 'vitest';
import { autoRollback } from './auto-rollback.ts';
import type { RequestRecord } from './lantern.ts';
import type { ModelRegistry } from './store/registry.ts';
import { countsAgainstVersion, VersionHealth } from './version-health.ts';

describe('VersionHealth', () => {
  it('trips at ≥5 requests with ≥50% failing, once per version', () => {
    const health = new VersionHealth();
    const outcomes = [true, false, true, false].map((ok) => health.observe('m@2', ok));
    expect(outcomes).toEqual([undefined, undefined, undefined, undefined]);
    expect(health.observe('m@2', false)).toBe('rolled back automatically: 3 of its last 5 requests failed');
    expect(health.observe('m@2', false)).toBeUndefined();
  });

  it('does not trip below the rate, and the window forgets old failures', () => {
    const health = new VersionHealth({ window: 10, minRequests: 5, failureRate: 0.5 });
    const run = (ok: boolean, n: number) => Array.from({ length: n }, () => health.observe('m@1', ok));
    // 4 failures among the last 10 never trip; the window then forgets them entirely.
    expect([...run(true, 10), ...run(false, 4), ...run(true, 10), ...run(false, 4)].every((r) => r === undefined)).toBe(true);
    // Counted since the start this would be 9 of 29 (31%): only the window makes it 5 of 10.
    expect(health.observe('m@1', false)).toBe('rolled back automatically: 5 of its last 10 requests failed');
  });

  it('counts only failures that are the version\'s fault', () => {
    expect(['INPUT', 'BUSY', 'CANCELLED', 'TIMEOUT', 'RUNTIME_UNAVAILABLE'].map(countsAgainstVersion)).toEqual([false, false, false, false, false]);
    expect(['MODEL_LOAD', 'WORKER_CRASHED', 'INTERNAL', 'DEVICE_LOST'].map(countsAgainstVersion)).toEqual([true, true, true, true]);
  });
});

describe('autoRollback', () => {
  const fail = (errorCode: string): RequestRecord => ({ ok: false, modelId: 'spam', errorCode, errorName: 'X', totalMs: 1 });
  const flush = () => new Promise((r) => setTimeout(r, 0));

  it('rolls the active version back after enough real failures, ignoring bad input', async () => {
    const calls: [string, string][] = [];
    const registry = { rollBackAutomatically: async (key: string, reason: string) => (calls.push([key, reason]), 'spam@1.0.0') } as unknown as ModelRegistry;
    const watch = autoRollback({ registry: Promise.resolve(registry), source: { describe: async () => ({ version: '1.1.0' }) as never } });
    for (let i = 0; i < 20; i++) watch.record(fail('INPUT'));
    await flush();
    expect(calls).toEqual([]);
    for (let i = 0; i < 5; i++) watch.record(fail('MODEL_LOAD'));
    for (let i = 0; i < 5; i++) await flush();
    expect(calls).toEqual([['spam@1.1.0', 'rolled back automatically: 5 of its last 5 requests failed']]);
  });

  it('counts a run that hung a worker against its version: a model that hangs on some inputs is rolled back, whose requests only ever read as cancelled', async () => {
    const calls: [string, string][] = [];
    const registry = { rollBackAutomatically: async (key: string, reason: string) => (calls.push([key, reason]), 'spam@1.0.0') } as unknown as ModelRegistry;
    const watch = autoRollback({ registry: Promise.resolve(registry), source: { describe: async () => ({ version: '1.1.0' }) as never } });
    const ok: RequestRecord = { ok: true, modelId: 'spam', version: '1.1.0', backend: 'wasm', label: 'ham', score: 0.9, batchSize: 1, coldStart: false, timings: { queueMs: 0, loadMs: 0, preprocessMs: 0, inferenceMs: 1, postprocessMs: 0, totalMs: 1 } };
    for (let i = 0; i < 3; i++) {
      watch.record(ok);
      // Each hang: the user gave up (cancelled, not counted), then the worker was restarted for it.
      watch.record(fail('CANCELLED'));
      watch.stuck('spam@1.1.0');
    }
    for (let i = 0; i < 5; i++) await flush();
    expect(calls).toEqual([['spam@1.1.0', 'rolled back automatically: 3 of its last 6 requests failed']]);
  });
});
