import { en, type MessageKey } from './en.ts';

export type { MessageKey };
export type Messages = Record<MessageKey, string>;

const catalogs: Record<string, Messages> = { en };

let current: Messages = en;

export function setLanguage(lang: string): void {
  current = catalogs[lang] ?? en;
}

/** Looks a message up and fills `{name}` placeholders. */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  return current[key].replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`));
}
