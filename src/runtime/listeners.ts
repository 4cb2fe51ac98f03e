/** Change listeners: `subscribe` returns the unsubscribe function; `notify` calls every listener. */
export class Listeners<A extends unknown[] = []> {
  private readonly listeners = new Set<(...args: A) => void>();

  subscribe(listener: (...args: A) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  notify(...args: A): void {
    // A copy: a listener may unsubscribe (or subscribe another) while being called.
    for (const listener of [...this.listeners]) listener(...args);
  }
}
