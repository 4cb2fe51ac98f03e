import { describe, expect, it } from 'vitest';
import { connectionState, DataPolicy, mayFetchAutomatically, needsConfirmation, parsePreference } from './data-policy.ts';
import { memoryStorage } from '../release/memory-storage.test-helpers.ts';

describe('connectionState', () => {
  it('reads cellular, saveData and the non-standard metered flag as metered', () => {
    expect(connectionState({ type: 'cellular' }).metered).toBe(true);
    expect(connectionState({ type: 'wifi', saveData: true })).toEqual({ metered: true, saveData: true, unmeteredKnown: false });
    expect(connectionState({ metered: true }).metered).toBe(true);
    expect(connectionState({ effectiveType: '2g' }).metered).toBe(true);
  });

  it('treats Wi-Fi as known-unmetered and an absent API as unknown but unmetered', () => {
    expect(connectionState({ type: 'wifi', effectiveType: '4g' })).toEqual({ metered: false, saveData: false, unmeteredKnown: true });
    expect(connectionState(undefined)).toEqual({ metered: false, saveData: false, unmeteredKnown: false });
    expect(connectionState({ effectiveType: '4g' }).metered).toBe(false);
  });
});

describe('mayFetchAutomatically', () => {
  const wifi = connectionState({ type: 'wifi' });
  const cell = connectionState({ type: 'cellular' });
  const saver = connectionState({ type: 'wifi', saveData: true });
  it('follows the preference', () => {
    expect([wifi, cell].map((c) => mayFetchAutomatically('wifi-only', c))).toEqual([true, false]);
    expect([wifi, cell].map((c) => mayFetchAutomatically('any', c))).toEqual([true, true]);
    expect([wifi, cell].map((c) => mayFetchAutomatically('never', c))).toEqual([false, false]);
  });
  it('never fetches in the background when the browser asks to save data', () => {
    expect(mayFetchAutomatically('any', saver)).toBe(false);
  });
  it('asks before a manual download only on a metered connection', () => {
    expect(needsConfirmation(cell)).toBe(true);
    expect(needsConfirmation(saver)).toBe(true);
    expect(needsConfirmation(wifi)).toBe(false);
  });
});

describe('DataPolicy', () => {
  it('persists the preference, defaults to Wi-Fi only and ignores junk', () => {
    const storage = memoryStorage();
    expect(new DataPolicy(storage, undefined).preference).toBe('wifi-only');
    const policy = new DataPolicy(storage, { type: 'cellular' });
    let notified = 0;
    policy.subscribe(() => notified++);
    expect(policy.automaticAllowed).toBe(false);
    policy.setPreference('any');
    expect(notified).toBe(1);
    expect(policy.automaticAllowed).toBe(true);
    expect(policy.confirmDownloads).toBe(true);
    expect(new DataPolicy(storage, undefined).preference).toBe('any');
    expect(parsePreference('sometimes')).toBe('wifi-only');
  });

  it('notifies when the connection changes', () => {
    const listeners: (() => void)[] = [];
    const connection = { type: 'wifi', addEventListener: (_: 'change', l: () => void) => listeners.push(l) };
    const policy = new DataPolicy(undefined, connection);
    let notified = 0;
    policy.subscribe(() => notified++);
    connection.type = 'cellular';
    listeners.forEach((l) => l());
    expect(notified).toBe(1);
    expect(policy.automaticAllowed).toBe(false);
  });
});
