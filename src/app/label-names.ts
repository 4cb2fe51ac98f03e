import type { LabelName } from '../runtime/index.ts';
import { language } from './i18n/index.ts';

/** A label as the UI shows it: the model's name for it in the UI language, else its default name, else the label itself. */
export function shownName(label: string, names?: LabelName): string {
  return names?.localizedNames?.[language()] ?? names?.displayName ?? label;
}
