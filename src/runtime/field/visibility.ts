/** Something that can stop starting work and pick it up again (the Lantern scheduler). */
export interface Pausable {
  pause(): void;
  resume(): void;
}

interface VisibilitySource {
  readonly visibilityState: DocumentVisibilityState;
  addEventListener(type: 'visibilitychange', listener: () => void): void;
  removeEventListener(type: 'visibilitychange', listener: () => void): void;
}

/**
 * Pauses `target` while the page is hidden: a backgrounded phone should not burn battery on
 * inference nobody is watching. Work already running finishes; queued work waits.
 */
export function pauseWhileHidden(target: Pausable, doc: VisibilitySource): () => void {
  const apply = () => (doc.visibilityState === 'hidden' ? target.pause() : target.resume());
  apply();
  doc.addEventListener('visibilitychange', apply);
  return () => doc.removeEventListener('visibilitychange', apply);
}
