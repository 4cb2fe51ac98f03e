import semver from 'semver';
import { ValidationError } from '../../src/runtime/errors.ts';

/**
 * The default release sequence derived from a semver version, for publishers who do not number
 * releases themselves. It follows semver precedence exactly (pre-releases before their release:
 * 2.0.0-rc.1 < 2.0.0) with a field per component wide enough that nothing carries over
 * (1.0.1001 < 1.1.0). Versions it cannot order as integers are refused: the publisher passes
 * --sequence instead.
 */
const LIMITS = { major: 1000, minor: 10_000, patch: 10_000 };
const PRE_TAGS = ['alpha', 'beta', 'rc'] as const;
/** Slots per release: pre-release ranks 0..299, the release itself last. */
const RELEASE_RANK = 999;

function refuse(version: string, why: string): never {
  throw new ValidationError(`Version ${version} cannot be given a sequence automatically (${why}); pass --sequence N.`);
}

/** Rank of a pre-release among its release's slots: alpha < alpha.0 < alpha.1 < beta < rc.N. */
function preRank(version: string, pre: readonly (string | number)[]): number {
  if (pre.length === 0) return RELEASE_RANK;
  const [tag, n, ...rest] = pre;
  const index = PRE_TAGS.indexOf(tag as (typeof PRE_TAGS)[number]);
  if (index < 0 || rest.length > 0 || (n !== undefined && (typeof n !== 'number' || n > 98))) {
    refuse(version, 'pre-releases must be alpha, beta or rc, optionally followed by .0 to .98');
  }
  return index * 100 + (n === undefined ? 0 : n + 1);
}

export function sequenceFromVersion(version: string): number {
  const parsed = semver.parse(version);
  if (!parsed || parsed.version !== version) refuse(version, 'not a semver version');
  if (parsed.build.length) refuse(version, 'build metadata does not order releases');
  const { major, minor, patch } = parsed;
  if (major >= LIMITS.major || minor >= LIMITS.minor || patch >= LIMITS.patch) refuse(version, `components must stay below ${LIMITS.major}.${LIMITS.minor}.${LIMITS.patch}`);
  return ((major * LIMITS.minor + minor) * LIMITS.patch + patch) * (RELEASE_RANK + 1) + preRank(version, parsed.prerelease);
}
