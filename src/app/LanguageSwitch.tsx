import { useEffect, useState } from 'preact/hooks';
import { chooseLanguage, isLanguage, language, LANGUAGES, onLanguageChange, t, type Language } from './i18n/index.ts';

/** The current language; a component calling this re-renders (with its subtree) on a switch. */
export function useLanguage(): Language {
  const [lang, setLang] = useState(language);
  useEffect(() => {
    const update = () => {
      setLang(language());
      document.title = t('app.title');
    };
    update();
    return onLanguageChange(update);
  }, []);
  return lang;
}

/** Header language picker; each option is written in its own language (and tagged with it). */
export function LanguageSwitch() {
  const lang = useLanguage();
  return (
    <label class="language">
      <span>{t('language.label')}</span>
      <select
        data-testid="language"
        value={lang}
        onChange={(e) => {
          const value = e.currentTarget.value;
          if (isLanguage(value)) void chooseLanguage(value);
        }}
      >
        {Object.entries(LANGUAGES).map(([code, { name }]) => <option key={code} value={code} lang={code}>{name}</option>)}
      </select>
    </label>
  );
}
