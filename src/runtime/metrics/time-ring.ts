import { z } from 'zod/mini';

export interface Slot<T> {
  /** Start of the slot, ms since the epoch, a multiple of slotMs. */
  start: number;
  value: T;
}

/**
 * A bounded series of fixed-width time slots, oldest first. Used both for the sliding window
 * (short slots, merged on read) and for "over time" charts (longer slots, read one by one).
 * Slots older than maxSlots·slotMs are dropped, so memory is bounded by maxSlots values.
 */
export class TimeRing<T> {
  private slots: Slot<T>[] = [];

  constructor(readonly slotMs: number, readonly maxSlots: number, private readonly create: () => T) {}

  /** The value for the slot containing `now`, created if needed. */
  at(now: number): T {
    const start = Math.floor(now / this.slotMs) * this.slotMs;
    const last = this.slots[this.slots.length - 1];
    // A clock that went backwards (or a state saved on a faster clock) keeps writing the newest slot.
    if (last && last.start >= start) return last.value;
    const slot = { start, value: this.create() };
    this.slots.push(slot);
    this.expire(now);
    return slot.value;
  }

  /** Drops slots that ended more than maxSlots slots before `now`. */
  expire(now: number): void {
    const oldest = Math.floor(now / this.slotMs) * this.slotMs - (this.maxSlots - 1) * this.slotMs;
    const keep = this.slots.findIndex((s) => s.start >= oldest);
    this.slots = keep < 0 ? [] : this.slots.slice(keep);
  }

  /** Slots overlapping the last `spanMs` before `now` (granularity: one slot). */
  within(now: number, spanMs: number): Slot<T>[] {
    return this.slots.filter((s) => s.start + this.slotMs > now - spanMs && s.start <= now);
  }

  all(): readonly Slot<T>[] {
    return this.slots;
  }

  toJSON<U>(encode: (value: T) => U): { slotMs: number; slots: { start: number; value: U }[] } {
    return { slotMs: this.slotMs, slots: this.slots.map((s) => ({ start: s.start, value: encode(s.value) })) };
  }

  /** Restores saved slots; a save made with another slot width is dropped rather than misread. */
  load<U>(json: { slotMs: number; slots: { start: number; value: U }[] }, decode: (value: U) => T): this {
    if (json.slotMs !== this.slotMs) return this;
    this.slots = json.slots.slice(-this.maxSlots).map((s) => ({ start: s.start, value: decode(s.value) }));
    return this;
  }
}

export function timeRingJsonSchema<S extends z.ZodMiniType>(value: S, maxSlots: number) {
  return z.object({
    slotMs: z.number().check(z.positive()),
    slots: z.array(z.object({ start: z.number(), value })).check(z.maxLength(maxSlots)),
  });
}
