import { BusyError, isAbortError, NetworkError, RuntimeUnavailableError, TimeoutError } from '../errors.ts';

/**
 * Errors that say nothing about the release being validated (see CandidateValidator): the version
 * stays unactivated, not rejected, and is validated again when its install is resumed or retried.
 * A NetworkError is the gate's own code that could not be loaded (offline before the service
 * worker kept it: importForAction), not the release's fault.
 * Read by the installer and the golden-set runner, both loaded when a release is installed.
 */
export function gateHasNoVerdict(error: unknown): boolean {
  return isAbortError(error) || error instanceof BusyError || error instanceof RuntimeUnavailableError || error instanceof TimeoutError || error instanceof NetworkError;
}
