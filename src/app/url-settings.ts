import type { BackendPreference } from '../runtime/index.ts';

/** Backend override from the URL (`?backend=webgpu|wasm`), used by tests and field debugging. */
export function backendFromUrl(search = location.search): BackendPreference {
  const value = new URLSearchParams(search).get('backend');
  return value === 'webgpu' || value === 'wasm' ? value : 'auto';
}
