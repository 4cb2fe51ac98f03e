import { afterEach, describe, expect, it } from 'vitest';
import { parseOfflineFiles, type OfflineFiles } from './offline-files.ts';
import { downloadingText, offlinePhase, offlineProgress, type StoredSnapshot } from './offline-progress.ts';
import { setLanguage } from './i18n/index.ts';

const MB = 1024 * 1024;
const BASE = 'https://example.org/app/';
const files: OfflineFiles = {
  precache: [{ url: 'index.html', size: 1000 }, { url: 'assets/index-abc.js', size: 99_000 }],
  ort: {
    // The wasm's wire size (brotli) is a sixth of what it decodes to, as the build's is.
    wasm: [{ url: 'assets/ort-wasm-simd-threaded-x.mjs', size: 20_000 }, { url: 'assets/ort-wasm-simd-threaded-x.wasm', size: 14 * MB, storedSize: 84 * MB }],
    webgpu: [{ url: 'assets/ort-wasm-simd-threaded.asyncify-y.mjs', size: 50_000 }, { url: 'assets/ort-wasm-simd-threaded.asyncify-y.wasm', size: 27 * MB }],
  },
  models: [{ id: 'spam-filter', size: 300_000 }, { id: 'fashion-mnist', size: 30_000 }],
};
const TOTAL_WASM = 100_000 + 20_000 + 14 * MB + 330_000;
const nothing: StoredSnapshot = { shellActive: false, cachedPaths: new Set(), modelsInstalled: false, modelBytes: 0, runtimeBytes: 0 };
const ortWasm = ['/app/assets/ort-wasm-simd-threaded-x.mjs', '/app/assets/ort-wasm-simd-threaded-x.wasm'];

afterEach(() => setLanguage('en'));

describe('offline progress', () => {
  it('totals the shell, the device\'s ORT build and the built-in models', () => {
    expect(offlineProgress(files, 'wasm', nothing, BASE)).toEqual({ stored: 0, total: TOTAL_WASM, runtimeStored: false, ready: false });
    expect(offlineProgress(files, 'webgpu', nothing, BASE).total).toBe(100_000 + 50_000 + 27 * MB + 330_000);
  });

  it('counts precache entries as they land in Cache Storage, all of them once the worker is active', () => {
    const oneCached = offlineProgress(files, 'wasm', { ...nothing, cachedPaths: new Set(['/app/index.html']) }, BASE);
    expect(oneCached.stored).toBe(1000);
    // A revisioned precache key (`index.html?__WB_REVISION__=…`) has the same pathname; another origin's root does not count.
    expect(offlineProgress(files, 'wasm', { ...nothing, cachedPaths: new Set(['/index.html']) }, BASE).stored).toBe(0);
    expect(offlineProgress(files, 'wasm', { ...nothing, shellActive: true }, BASE).stored).toBe(100_000);
  });

  it('counts only the ORT build this device uses', () => {
    const webgpuCached = new Set(['/app/assets/ort-wasm-simd-threaded.asyncify-y.mjs', '/app/assets/ort-wasm-simd-threaded.asyncify-y.wasm']);
    expect(offlineProgress(files, 'wasm', { ...nothing, cachedPaths: webgpuCached }, BASE)).toMatchObject({ stored: 0, runtimeStored: false });
    expect(offlineProgress(files, 'wasm', { ...nothing, cachedPaths: new Set(ortWasm.slice(1)) }, BASE)).toMatchObject({ stored: 14 * MB, runtimeStored: false });
    expect(offlineProgress(files, 'wasm', { ...nothing, cachedPaths: new Set(ortWasm) }, BASE)).toMatchObject({ stored: 14 * MB + 20_000, runtimeStored: true });
  });

  it('counts ORT\'s wasm as it arrives, by its share of the wire size, whole once kept', () => {
    // A quarter of the decoded bytes have arrived: a quarter of what the wasm costs over the wire.
    expect(offlineProgress(files, 'wasm', { ...nothing, runtimeBytes: 21 * MB }, BASE)).toMatchObject({ stored: 3.5 * MB, runtimeStored: false });
    // Never more than the file, whatever is reported; once kept, the file itself counts.
    expect(offlineProgress(files, 'wasm', { ...nothing, runtimeBytes: 90 * MB }, BASE).stored).toBe(14 * MB);
    expect(offlineProgress(files, 'wasm', { ...nothing, runtimeBytes: 21 * MB, cachedPaths: new Set(ortWasm) }, BASE).stored).toBe(14 * MB + 20_000);
  });

  it('counts the model store up to the built-ins\' size, all of it once they are installed', () => {
    expect(offlineProgress(files, 'wasm', { ...nothing, modelBytes: 100_000 }, BASE).stored).toBe(100_000);
    // Other models the user installed do not inflate the figure.
    expect(offlineProgress(files, 'wasm', { ...nothing, modelBytes: 5 * MB }, BASE).stored).toBe(330_000);
    expect(offlineProgress(files, 'wasm', { ...nothing, modelsInstalled: true }, BASE).stored).toBe(330_000);
  });

  it('is ready only with the service worker active, the ORT build cached and the models installed', () => {
    const all: StoredSnapshot = { shellActive: true, cachedPaths: new Set(ortWasm), modelsInstalled: true, modelBytes: 330_000, runtimeBytes: 84 * MB };
    expect(offlineProgress(files, 'wasm', all, BASE)).toEqual({ stored: TOTAL_WASM, total: TOTAL_WASM, runtimeStored: true, ready: true });
    expect(offlineProgress(files, 'wasm', { ...all, shellActive: false }, BASE).ready).toBe(false);
    expect(offlineProgress(files, 'wasm', { ...all, modelsInstalled: false }, BASE).ready).toBe(false);
    expect(offlineProgress(files, 'webgpu', all, BASE).ready).toBe(false);
  });
});

describe('offline phase', () => {
  const progress = (runtimeStored: boolean, ready = false) => ({ stored: 0, total: 1, runtimeStored, ready });

  it('asks first on a connection that costs money, until accepted or the runtime is already stored', () => {
    expect(offlinePhase(progress(false), true, false)).toBe('ask');
    expect(offlinePhase(progress(false), true, true)).toBe('downloading');
    expect(offlinePhase(progress(true), true, false)).toBe('downloading');
    expect(offlinePhase(progress(false), false, false)).toBe('downloading');
    expect(offlinePhase(progress(true, true), true, false)).toBe('ready');
  });
});

describe('offline texts and list', () => {
  it('words the progress in the current language', async () => {
    expect(downloadingText({ stored: 1.5 * MB, total: TOTAL_WASM })).toBe('Downloading for offline use: 1.5 MB of 14.4 MB');
    await setLanguage('hi');
    const hindi = downloadingText({ stored: 1.5 * MB, total: TOTAL_WASM });
    expect(hindi).toMatch(/[\u0900-\u097F]/);
    expect(hindi).toContain('1.5');
    expect(hindi).toContain('14.4');
  });

  it('accepts the build\'s list and refuses a damaged one', () => {
    expect(parseOfflineFiles(JSON.parse(JSON.stringify(files)))).toEqual(files);
    expect(parseOfflineFiles({ ...files, ort: { wasm: files.ort.wasm } })).toBeUndefined();
    expect(parseOfflineFiles({ ...files, models: [{ id: 'x', size: -1 }] })).toBeUndefined();
    expect(parseOfflineFiles('<!doctype html>')).toBeUndefined();
  });
});
