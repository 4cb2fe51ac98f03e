// Apart from model-config.ts: the folder source needs these rules, and it is on the first screen's
// import graph, where model-config's schemas would come with it (module-level zod calls are not
// tree-shaken; the initial JavaScript budget, e2e/serving.spec.ts).

/** id2label's values in label-index order: what a manifest's `labels` must be. */
export const labelsOf = <T>(config: { id2label: Record<string, T> }): T[] =>
  Object.keys(config.id2label).sort((a, b) => Number(a) - Number(b)).map((k) => config.id2label[k]!);

/** A label's names for people, as config.json's "lantern" block gives them (results and model lists carry them). */
export interface LabelName {
  /** From `display_names`. */
  displayName?: string;
  /** From `localized_display_names`: language → name; the UI picks one. */
  localizedNames?: Record<string, string>;
}

/** `record[key]` if it is the record's own: a label may be any string (`constructor`, `__proto__`...). */
const own = (record: unknown, key: string): unknown =>
  typeof record === 'object' && record !== null && Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;

/**
 * How many times `counts` (label → count: shadow figures, metrics) saw `label`: 0 for a label it
 * does not hold, whatever the label is called (`counts.constructor` is Object's own function).
 */
export const countOf = (counts: Readonly<Record<string, number>>, label: string): number => (Object.hasOwn(counts, label) ? counts[label]! : 0);

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The names config.json's `lantern.display_names` and `lantern.localized_display_names` give
 * each of `labels`, in the same order (`{}` for a label it does not name). The worker reads a
 * validated config; a development folder's is read as it is, so anything but a name is passed over.
 */
export function labelNamesOf(config: unknown, labels: readonly string[]): LabelName[] {
  const lantern = own(config, 'lantern');
  const display = own(lantern, 'display_names');
  const localized = own(lantern, 'localized_display_names');
  const languages = typeof localized === 'object' && localized !== null ? Object.keys(localized) : [];
  return labels.map((label) => {
    const displayName = text(own(display, label));
    const byLanguage = languages.flatMap((language) => {
      const name = text(own(own(localized, language), label));
      return name ? [[language, name]] : [];
    });
    return { ...(displayName && { displayName }), ...(byLanguage.length && { localizedNames: Object.fromEntries(byLanguage) }) };
  });
}
