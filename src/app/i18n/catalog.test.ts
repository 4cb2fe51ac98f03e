import { describe, expect, it } from 'vitest';
import { en, type MessageKey } from './en.ts';
import { enCamera } from './en-camera.ts';
import { enMetrics } from './en-metrics.ts';
import { enModels } from './en-models.ts';
import { enShadow } from './en-shadow.ts';
import { hi } from './hi.ts';
import { addEnglish, detectLanguage, language, LANGUAGES, setLanguage, t, tCount } from './index.ts';

const placeholders = (message: string) => [...message.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('message catalog', () => {
  const english: Record<MessageKey, string> = { ...en, ...enCamera, ...enMetrics, ...enModels, ...enShadow };
  const keys = Object.keys(english).sort() as MessageKey[];

  it('the first download\'s English holds no camera, Metrics, Models or shadow message; each screen\'s come with its code', () => {
    const later = { camera: ['camera.'], metrics: ['metrics.', 'count.requests.', 'count.minutes.', 'count.cores.'], models: ['models.', 'settings.', 'release.'], shadow: ['shadow.', 'count.shadowRuns.'] };
    expect(Object.keys(en).filter((k) => Object.values(later).flat().some((prefix) => k.startsWith(prefix)))).toEqual([]);
    expect(Object.keys(enCamera).every((k) => later.camera.some((prefix) => k.startsWith(prefix)))).toBe(true);
    expect(Object.keys(enMetrics).every((k) => later.metrics.some((prefix) => k.startsWith(prefix)))).toBe(true);
    expect(Object.keys(enModels).every((k) => later.models.some((prefix) => k.startsWith(prefix)))).toBe(true);
    expect(Object.keys(enShadow).every((k) => later.shadow.some((prefix) => k.startsWith(prefix)))).toBe(true);
  });

  for (const [lang, language] of Object.entries(LANGUAGES)) {
    it(`${lang} has every key, no extra key, no empty message and the same placeholders`, async () => {
      addEnglish(enCamera);
      addEnglish(enMetrics);
      addEnglish(enModels);
      addEnglish(enShadow);
      const messages = await language.messages();
      expect(Object.keys(messages).sort()).toEqual(keys);
      for (const key of keys) {
        const message = messages[key] ?? '';
        expect(message.trim(), `${lang} ${key}`).not.toBe('');
        expect(placeholders(message), `${lang} ${key}`).toEqual(placeholders(english[key]));
      }
    });
  }

  it('has a message for `one` and for `other` for every counted noun', () => {
    const counted = (category: string) => Object.keys(en).flatMap((k) => k.match(new RegExp(`^count\\.(\\w+)\\.${category}$`))?.[1] ?? []).sort();
    expect(counted('one').length).toBeGreaterThan(0);
    expect(counted('one')).toEqual(counted('other'));
  });

  it('Hindi is really translated (Devanagari), not a copy of English', () => {
    const copied = Object.keys(en).filter((k) => hi[k as keyof typeof en] === en[k as keyof typeof en]);
    // Only messages made of placeholders, names and technical terms may stay identical.
    expect(copied.length).toBeLessThan(Object.keys(en).length * 0.1);
    expect(hi['nav.classify']).toMatch(/[\u0900-\u097F]/);
  });
});

describe('language choice and formatting', () => {
  it('prefers a saved choice, then the first shipped browser language, then English', () => {
    expect(detectLanguage('hi', ['en-US'])).toBe('hi');
    expect(detectLanguage(null, ['fr-FR', 'hi-IN', 'en'])).toBe('hi');
    expect(detectLanguage('xx', ['de'])).toBe('en');
  });

  it('applies the latest choice when an earlier one\'s catalog arrives after it', async () => {
    const hindi = setLanguage('hi');
    const english = setLanguage('en');
    await Promise.all([hindi, english]);
    expect(language()).toBe('en');
    expect(t('nav.classify')).toBe(en['nav.classify']);
  });

  it('fills placeholders and formats numbers in the current locale', async () => {
    await setLanguage('hi');
    expect(t('models.storage.models', { size: '5 KB' })).toBe('डिस्क पर मॉडल: 5 KB');
    // Indian digit grouping.
    expect(t('metrics.summary', { requests: 123456, ok: 1, errors: 0, rejections: 0 })).toContain('1,23,456');
    await setLanguage('en');
    expect(t('metrics.summary', { requests: 123456, ok: 1, errors: 0, rejections: 0 })).toContain('123,456');
  });

  it('puts a count and its noun in the form the language\'s plural rules choose', async () => {
    await setLanguage('en');
    expect([0, 1, 2].map((n) => tCount('requests', n))).toEqual(['0 requests', '1 request', '2 requests']);
    expect(t('metrics.summary', { requests: tCount('requests', 1), ok: 1, errors: tCount('errors', 0), rejections: 0 })).toBe('1 request: 1 answered, 0 errors, 0 rejected.');
    // Hindi counts 0 and 1 alike, and groups digits the Indian way.
    await setLanguage('hi');
    expect([0, 1, 2].map((n) => tCount('errors', n))).toEqual(['0 त्रुटि', '1 त्रुटि', '2 त्रुटियाँ']);
    expect(tCount('errors', 123456)).toBe('1,23,456 त्रुटियाँ');
    await setLanguage('en');
  });
});
