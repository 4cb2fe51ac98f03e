// Apart from model-config.ts: the folder source needs this rule, and it is on the first screen's
// import graph, where model-config's schemas would come with it (module-level zod calls are not
// tree-shaken; the initial JavaScript budget, e2e/serving.spec.ts).

/** id2label's values in label-index order: what a manifest's `labels` must be. */
export const labelsOf = <T>(config: { id2label: Record<string, T> }): T[] =>
  Object.keys(config.id2label).sort((a, b) => Number(a) - Number(b)).map((k) => config.id2label[k]!);
