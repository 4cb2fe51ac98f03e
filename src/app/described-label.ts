import type { ModelDescriptor } from '../runtime/index.ts';
import { shownName } from './label-names.ts';

/**
 * A label outside a result (which carries its own names: metrics, shadow figures), named as
 * `model`, the version installed now, names it; a label it no longer has is shown as it is.
 * Apart from label-names.ts, which the first screen loads: only later screens need this.
 */
export function describedLabel(model: ModelDescriptor | undefined, label: string): string {
  const index = model?.labels.indexOf(label) ?? -1;
  return shownName(label, index < 0 ? undefined : model?.labelNames?.[index]);
}
