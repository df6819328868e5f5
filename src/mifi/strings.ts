// The Wi-Fi screens' strings (locales/mifi/<lang>.json): loaded with those screens, not in the first load.
import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { $activeLang, addMessages } from '../i18n/index.ts';
import { DEFAULT_LOCALE, type Locale } from '../core/lang.ts';

const loaders = import.meta.glob<{ default: Record<string, unknown> }>('../../locales/mifi/*.json');
const loaded = new Map<string, Promise<void>>();

export function loadMifiStrings(lang: Locale): Promise<void> {
  let p = loaded.get(lang);
  if (!p) {
    const load = loaders[`../../locales/mifi/${lang}.json`];
    p = load ? load().then((m) => addMessages(lang, m.default)) : Promise.resolve();
    loaded.set(lang, p);
  }
  return p;
}

/** Loads the Wi-Fi strings of the active language (and the default's, the fallback); true once they are in. */
export function useMifiStrings(): boolean {
  const lang = useStore($activeLang);
  const [ready, setReady] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void Promise.all([loadMifiStrings(DEFAULT_LOCALE), loadMifiStrings(lang)]).then(() => live && setReady(lang));
    return () => {
      live = false;
    };
  }, [lang]);
  return ready === lang;
}
