import { describe, expect, it } from 'vitest';
import { pauseWhileHidden } from './visibility.ts';

describe('pauseWhileHidden', () => {
  it('pauses on hidden, resumes on visible, starts paused when opened hidden, and detaches', () => {
    const calls: string[] = [];
    const listeners = new Set<() => void>();
    const doc = {
      visibilityState: 'hidden' as DocumentVisibilityState,
      addEventListener: (_: 'visibilitychange', l: () => void) => listeners.add(l),
      removeEventListener: (_: 'visibilitychange', l: () => void) => listeners.delete(l),
    };
    const off = pauseWhileHidden({ pause: () => calls.push('pause'), resume: () => calls.push('resume') }, doc);
    doc.visibilityState = 'visible';
    listeners.forEach((l) => l());
    doc.visibilityState = 'hidden';
    listeners.forEach((l) => l());
    off();
    expect(listeners.size).toBe(0);
    expect(calls).toEqual(['pause', 'resume', 'pause']);
  });
});
