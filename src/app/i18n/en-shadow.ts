/**
 * The shadow evaluation's English messages, shown by the Models and Metrics screens only. They
 * come with ShadowFigures.tsx (which both screens' shadow panels import), not with the first download.
 */
export const enShadow = {
  'count.shadowRuns.one': '{count} shadow run',
  'count.shadowRuns.other': '{count} shadow runs',
  'shadow.heading': 'Shadow evaluation of {version}',
  'shadow.runs': 'Shadow runs: {runs} (skipped while busy or hidden: {skipped})',
  'shadow.agreement': 'Top-1 agreement with the active version: {agreement}',
  'shadow.latency': 'Latency relative to the active version: {ratio}',
  'shadow.errors': 'Errors: {errors}',
  'shadow.label': 'Label',
  'shadow.promote': 'Promote',
  'shadow.reject': 'Reject',
  'shadow.how.automatic': 'automatically (the release\'s own bar)',
  'shadow.how.manual': 'by hand',
  'shadow.decision.promoted': 'Version {version} was promoted {how} after {runs}: {agreement} agreement, latency {ratio}, {errors}.',
  'shadow.decision.rejected': 'Version {version} was rejected {how} after {runs}: {agreement} agreement, latency {ratio}, {errors}.',
  'shadow.decision.ended': 'Shadow evaluation of {version} ended after {runs} ({agreement} agreement, latency {ratio}, {errors}): the active version now has other labels, so their answers can no longer be compared. It was neither promoted nor rejected and can still be installed as an update.',
};
