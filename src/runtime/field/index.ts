/** `lantern/field`: defaults and policies for devices in the field (data use, low-end profiles, hidden pages, code loaded when the link is back). */
export { DataPolicy, DATA_PREFERENCES, type ConnectionInfo, type DataPreference } from './data-policy.ts';
export { runtimeDefaults, type DeviceHints, type RuntimeDefaults } from './device-profile.ts';
export { pauseWhileHidden } from './visibility.ts';
export { loadChunk } from './lazy-chunk.ts';
