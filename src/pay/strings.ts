// The payment screens' strings (locales/pay/<lang>.json): loaded with those screens, not in the first load.
import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { $activeLang, addMessages } from '../i18n/index.ts';
import { DEFAULT_LOCALE, type Locale } from '../core/lang.ts';

const loaders = import.meta.glob<{ default: Record<string, unknown> }>('../../locales/pay/*.json');
const loaded = new Map<string, Promise<void>>();

export function loadPayStrings(lang: Locale): Promise<void> {
  let p = loaded.get(lang);
  if (!p) {
    const load = loaders[`../../locales/pay/${lang}.json`];
    p = load ? load().then((m) => addMessages(lang, m.default)) : Promise.resolve();
    loaded.set(lang, p);
  }
  return p;
}

// Every screen that shows these strings imports this module, so it evaluates (and its lazy chunk resolves) only
// once the active language's table and the fallback's are in: the screen never renders a first frame without
// them and then grows when they arrive (a layout shift under what the person is typing, seen in the embed).
await Promise.all([loadPayStrings(DEFAULT_LOCALE), loadPayStrings($activeLang.get())]).catch(() => undefined);

/** Loads the payment strings of the active language (and the default's, the fallback); true once they are in. */
export function usePayStrings(): boolean {
  const lang = useStore($activeLang);
  const [ready, setReady] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void Promise.all([loadPayStrings(DEFAULT_LOCALE), loadPayStrings(lang)]).then(() => live && setReady(lang));
    return () => {
      live = false;
    };
  }, [lang]);
  return ready === lang;
}
