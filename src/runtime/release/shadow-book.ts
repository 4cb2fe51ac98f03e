import { z } from 'zod/mini';
import { emptyFigures, type ShadowFigures } from './shadow.ts';
import { StoredValue, type KeyValueStorage } from './stored-value.ts';

/**
 * Where shadow figures live between reloads (a field device may take days to see enough real
 * requests): counts per candidate version in localStorage, never an input. Dropped when the
 * candidate is promoted or rejected (the decision keeps its own copy in the model store), and
 * when it leaves shadow any other way (release/follow-store.ts).
 */
const Counts = z.record(z.string(), z.int().check(z.nonnegative()));
const FiguresSchema = z.object({
  runs: z.int().check(z.nonnegative()),
  agreements: z.int().check(z.nonnegative()),
  errors: z.int().check(z.nonnegative()),
  skipped: z.int().check(z.nonnegative()),
  activeMs: z.number().check(z.nonnegative()),
  candidateMs: z.number().check(z.nonnegative()),
  activeLabels: Counts,
  candidateLabels: Counts,
});

/** Each candidate's figures read on their own: one damaged entry loses only that candidate's. */
const EachCandidate = z.pipe(z.record(z.string(), z.unknown()), z.transform((all) => Object.fromEntries(Object.entries(all).flatMap(([key, value]) => {
  const figures = FiguresSchema.safeParse(value);
  return figures.success ? [[key, figures.data]] : [];
}))));

export class ShadowBook {
  private readonly stored: StoredValue<Record<string, ShadowFigures>>;

  constructor(storage: KeyValueStorage | undefined) {
    this.stored = new StoredValue(storage, 'lantern.shadowFigures', EachCandidate, {});
  }

  /** Figures of candidate `key` (`id@version`). */
  figures(key: string): ShadowFigures {
    return this.stored.value[key] ?? emptyFigures();
  }

  update(key: string, change: (figures: ShadowFigures) => ShadowFigures): ShadowFigures {
    const next = change(this.figures(key));
    this.stored.set({ ...this.stored.value, [key]: next });
    return next;
  }

  forget(key: string): void {
    if (!(key in this.stored.value)) return;
    const { [key]: _dropped, ...rest } = this.stored.value;
    this.stored.set(rest);
  }

  /** Keeps only the figures of `candidates` (the versions in shadow now): a candidate removed, quarantined or revoked takes its figures with it. */
  retain(candidates: ReadonlySet<string>): void {
    const kept = Object.entries(this.stored.value).filter(([key]) => candidates.has(key));
    if (kept.length !== Object.keys(this.stored.value).length) this.stored.set(Object.fromEntries(kept));
  }

  subscribe(listener: () => void): () => void {
    return this.stored.subscribe(listener);
  }
}
