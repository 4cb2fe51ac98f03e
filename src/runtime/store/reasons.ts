/**
 * Why a version was refused or taken out of service, as the store records it (`VersionRecord.reason`,
 * `RegistryNotice.reason`): a fixed English sentence, made from a template with its figures filled
 * in. Here are the templates the first screen's code records with (the initial JavaScript budget,
 * e2e/serving.spec.ts); reason-catalog.ts holds the rest, and every one by name for an app that
 * says them in its user's language.
 */
export const REVOKED_REASON = 'the trust store no longer vouches for it: its signing key was dropped or no longer covers this model, or the model now needs more signatures than it has';
export const DAMAGED_REASON = 'stored bytes no longer match the signed manifest';
export const FAILING_REASON = 'rolled back automatically: {failed} of its last {total} requests failed';

export const PLACEHOLDER = /\{(\w+)\}/g;

/** `template` with each `{name}` replaced by its figure. */
export function fillReason(template: string, figures: Record<string, string | number>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => String(figures[name]));
}
