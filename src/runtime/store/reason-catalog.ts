import { DAMAGED_REASON, FAILING_REASON, PLACEHOLDER, REVOKED_REASON } from './reasons.ts';

/**
 * `lantern/reasons`: every reason template the store records, by name (reasons.ts). An entry of
 * its own, so that an app loads it with the screen that shows reasons, not with its first.
 * `readReason` gives a recorded sentence's name and figures back, so that an app can say it in
 * its user's language, for records made before an update too: the PWA's Hindi does. A
 * withdrawal's reason is its publisher's own words, and a configuration a release's config check
 * refuses is named by schema.ts' sentence: neither is one of these.
 */
export const REASONS = {
  revoked: REVOKED_REASON,
  damaged: DAMAGED_REASON,
  damagedInDownload: 'failed verification after download',
  inconsistent: 'its files do not match their chunks',
  failing: FAILING_REASON,
  unloadable: 'its model could not be loaded on this device',
  goldenHung: 'a validation item kept the inference worker busy until it had to be restarted',
  goldenFailed: '{failed} of {total} validation items failed to run',
  goldenAccuracy: 'validation accuracy {accuracy} is below the release\'s threshold of {threshold}',
  shadowRejected: 'rejected after {runs} shadow runs, {agreement} top-1 agreement, latency {latency}, {errors} errors',
  configNotJson: 'its {file} is not valid JSON',
  configInvalid: 'its config.json is not a valid model configuration',
  configOtherModel: 'its config.json describes {described}, not {id}',
  configOtherVersion: 'its config.json is that of another version',
  configOtherTask: 'its files make a {made} model, not the {task} model its manifest announces',
  configNoTask: 'its files make no loadable model, not the {task} model its manifest announces',
  configLabels: 'the labels of its config.json differ from its manifest\'s',
} as const;

export type ReasonKind = keyof typeof REASONS;

/**
 * Each template as a pattern matching its sentences, with the names of its figures in order. Made
 * on first use, so that this module has no side effect to keep it in the first screen's code.
 */
let patterns: { kind: ReasonKind; names: string[]; pattern: RegExp }[] | undefined;
const patternsOf = () => patterns ??= Object.entries(REASONS).map(([kind, template]) => ({
  kind: kind as ReasonKind,
  names: [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!),
  pattern: new RegExp(`^${template.split(PLACEHOLDER).map((part, i) => (i % 2 ? '(.+?)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('')}$`),
}));

/** The template and figures a recorded reason was made from, or undefined for any other text. */
export function readReason(text: string): { kind: ReasonKind; figures: Record<string, string> } | undefined {
  for (const { kind, names, pattern } of patternsOf()) {
    const match = pattern.exec(text);
    if (match) return { kind, figures: Object.fromEntries(names.map((name, i) => [name, match[i + 1]!])) };
  }
  return undefined;
}
