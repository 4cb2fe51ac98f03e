import { describe, expect, it } from 'vitest';
import { chooseBackend, NO_ADAPTER, probeAdapter, wasmThreads, type AdapterSummary, type DeviceFacts } from './backend.ts';

const hardware: AdapterSummary = { available: true, isFallbackAdapter: false, vendor: 'nvidia', architecture: 'ampere' };
const software: AdapterSummary = { available: true, isFallbackAdapter: true, vendor: 'google', architecture: 'swiftshader' };
const facts = (adapter: AdapterSummary, isolated = true, cores = 4): DeviceFacts => ({ adapter, crossOriginIsolated: isolated, hardwareConcurrency: cores });

describe('chooseBackend', () => {
  it('uses a hardware adapter on auto', () => {
    const choice = chooseBackend('auto', facts(hardware));
    expect(choice.backend).toBe('webgpu');
    expect(choice.reason).toEqual({ kind: 'hardware-adapter', adapter: 'nvidia ampere' });
  });
  it('prefers WASM over a software adapter unless WebGPU is forced', () => {
    expect(chooseBackend('auto', facts(software)).backend).toBe('wasm');
    expect(chooseBackend('auto', facts(software)).reason).toEqual({ kind: 'software-adapter', adapter: 'google swiftshader' });
    expect(chooseBackend('webgpu', facts(software)).backend).toBe('webgpu');
  });
  it('falls back to WASM and says why when there is no adapter', () => {
    const auto = chooseBackend('auto', facts({ ...NO_ADAPTER, unavailableReason: { kind: 'null-adapter' } }));
    expect(auto).toMatchObject({ backend: 'wasm', reason: { kind: 'no-adapter', problem: { kind: 'null-adapter' } } });
    const forced = chooseBackend('webgpu', facts(NO_ADAPTER));
    expect(forced).toMatchObject({ backend: 'wasm', reason: { kind: 'webgpu-unavailable', problem: { kind: 'no-webgpu' } } });
  });
  it('honours an explicit WASM request even with a GPU', () => {
    expect(chooseBackend('wasm', facts(hardware)).backend).toBe('wasm');
  });
});

describe('wasmThreads', () => {
  it('is 1 without cross-origin isolation', () => {
    expect(wasmThreads({ crossOriginIsolated: false, hardwareConcurrency: 8 })).toBe(1);
  });
  it('splits cores between workers and caps at 4', () => {
    expect(wasmThreads({ crossOriginIsolated: true, hardwareConcurrency: 2 })).toBe(2);
    expect(wasmThreads({ crossOriginIsolated: true, hardwareConcurrency: 2 }, 2)).toBe(1);
    expect(wasmThreads({ crossOriginIsolated: true, hardwareConcurrency: 16 })).toBe(4);
    expect(wasmThreads({ crossOriginIsolated: true, hardwareConcurrency: 0 })).toBe(1);
  });
});

describe('probeAdapter', () => {
  it('reports a missing navigator.gpu', async () => {
    expect(await probeAdapter({})).toEqual(NO_ADAPTER);
  });
  it('reports a null adapter', async () => {
    const result = await probeAdapter({ gpu: { requestAdapter: async () => null } });
    expect(result.available).toBe(false);
    expect(result.unavailableReason).toEqual({ kind: 'null-adapter' });
  });
  it('reads adapter info including isFallbackAdapter', async () => {
    const gpu = { requestAdapter: async () => ({ info: { vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true } }) };
    expect(await probeAdapter({ gpu })).toEqual(software);
  });
  it('never throws', async () => {
    const gpu = { requestAdapter: async () => { throw new Error('denied'); } };
    const result = await probeAdapter({ gpu });
    expect(result.available).toBe(false);
    expect(result.unavailableReason).toEqual({ kind: 'request-failed', detail: 'denied' });
  });
});
