// Compact language selector: all five locales, wherever it is shown. No part of the app offers a shorter list (a
// Spanish reader would lose their language on that screen); docs/architecture.md "Where the app does more".
import { useId } from 'react';
import { useStore } from '@nanostores/react';
import { LOCALES, LOCALE_NAMES, isLocale } from '../core/lang.ts';
import { $lang } from '../stores/locale.ts';
import { useT } from '../i18n/index.ts';

export function LangSelect() {
  const t = useT();
  const lang = useStore($lang);
  const id = useId();
  return (
    <div className="lang-select">
      <label htmlFor={id} className="visually-hidden">
        {t('common.language')}
      </label>
      <select
        id={id}
        value={lang}
        onChange={(e) => {
          if (isLocale(e.target.value)) $lang.set(e.target.value);
        }}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LOCALE_NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}
