import { en, type MessageKey } from './en.ts';
import { Listeners } from '../../runtime/index.ts';

export type { MessageKey };
export type Messages = Record<MessageKey, string>;

/**
 * Every shipped language, with its name written in itself (what a reader looks for). English is
 * in the first download and is the fallback; another catalog loads when it is chosen, so a
 * reader of one language does not pay for the others before the first screen.
 */
export const LANGUAGES = {
  en: { name: 'English', messages: async (): Promise<Partial<Messages>> => english },
  hi: { name: 'हिन्दी', messages: async (): Promise<Partial<Messages>> => (await import('./hi.ts')).hi },
} satisfies Record<string, { name: string; messages: () => Promise<Partial<Messages>> }>;
export type Language = keyof typeof LANGUAGES;

/**
 * English, every language's fallback: the first screen's messages, and a lazily loaded screen's
 * own once its code has loaded (addEnglish).
 */
const english: Partial<Messages> = { ...en };

/** A lazily loaded screen's English messages, which come with its code, not the first download. */
export function addEnglish(messages: Partial<Messages>): void {
  Object.assign(english, messages);
}

const STORAGE_KEY = 'lantern.language';
const listeners = new Listeners();
const loaded: Partial<Record<Language, Partial<Messages>>> = { en: english };
let current: Language = 'en';
/** The latest choice: a catalog that arrives after a newer choice is not applied. */
let latestChoice = 0;

export function isLanguage(value: string | null | undefined): value is Language {
  return value !== null && value !== undefined && Object.hasOwn(LANGUAGES, value);
}

/** A saved choice wins; otherwise the first browser language we ship (`hi-IN` → `hi`). */
export function detectLanguage(saved: string | null, browser: readonly string[]): Language {
  if (isLanguage(saved)) return saved;
  for (const tag of browser) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return 'en';
}

export function language(): Language {
  return current;
}

/**
 * Loads the catalog, switches to it and tells subscribers (the app root re-renders everything).
 * A catalog that cannot load (an incomplete offline copy) leaves the current language on.
 */
export async function setLanguage(lang: string): Promise<void> {
  const choice = ++latestChoice;
  const next = isLanguage(lang) ? lang : 'en';
  try {
    loaded[next] ??= await LANGUAGES[next].messages();
  } catch {
    return;
  }
  if (choice !== latestChoice) return;
  current = next;
  if (typeof document !== 'undefined') document.documentElement.lang = current;
  listeners.notify();
}

/** The user picked a language in the UI: remember it across visits. */
export function chooseLanguage(lang: Language): Promise<void> {
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // Storage refused (private mode): the choice holds for this visit.
  }
  return setLanguage(lang);
}

/** Start-up: saved choice, else navigator.languages. */
export function initLanguage(): Promise<void> {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem(STORAGE_KEY);
  } catch {
    saved = null;
  }
  return setLanguage(detectLanguage(saved, navigator.languages ?? [navigator.language]));
}

export function onLanguageChange(listener: () => void): () => void {
  return listeners.subscribe(listener);
}

/** Looks a message up and fills `{name}` placeholders. */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  return (loaded[current]?.[key] ?? english[key] ?? key).replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) return `{${name}}`;
    return typeof value === 'number' ? formatNumber(value) : value;
  });
}

/** Nouns whose form follows a count: `count.<noun>.one` and `count.<noun>.other` in every catalog. */
type NounOf<K> = K extends `count.${infer Noun}.other` ? Noun : never;
export type CountedNoun = NounOf<MessageKey>;

/** A key English has, the lazily loaded screens' own included once their code has added them. */
function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(english, key);
}

/**
 * `count` and its noun, in the form the current language's plural rules choose for it
 * (Intl.PluralRules): "1 request" but "0 requests" in English; "1 त्रुटि" and "0 त्रुटि" but
 * "2 त्रुटियाँ" in Hindi, which counts 0 as one. A category no catalog has a message for (Arabic's
 * `few`, say) falls back to `other`.
 */
export function tCount(noun: CountedNoun, count: number): string {
  const key = `count.${noun}.${new Intl.PluralRules(current).select(count)}`;
  return t(isMessageKey(key) ? key : `count.${noun}.other`, { count });
}

/** Numbers in the current language's conventions (Hindi uses Indian grouping: 1,23,456). */
export function formatNumber(value: number, options: Intl.NumberFormatOptions = {}): string {
  return new Intl.NumberFormat(current, options).format(value);
}

export function formatDateTime(value: number | Date, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }): string {
  return new Intl.DateTimeFormat(current, options).format(value);
}
