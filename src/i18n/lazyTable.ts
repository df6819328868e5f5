// A string table that loads with the screens that show it (locales/<name>/<lang>.json: the payment screens', the
// Wi-Fi screens'), not in the first load. One per folder; the screens' modules own the import.meta.glob.
import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { $activeLang, addMessages } from './index.ts';
import { DEFAULT_LOCALE, type Locale } from '../core/lang.ts';

type Loaders = Record<string, () => Promise<{ default: Record<string, unknown> }>>;

export interface LazyTable {
  /** The table of one language, once (a failed load is tried again next time). */
  load(lang: Locale): Promise<void>;
  /** The active language's table and the fallback's. */
  loadActive(lang?: Locale): Promise<void>;
}

export function lazyTable(loaders: Loaders): LazyTable {
  const loaded = new Map<string, Promise<void>>();
  const load = (lang: Locale): Promise<void> => {
    let p = loaded.get(lang);
    if (!p) {
      const file = Object.keys(loaders).find((k) => k.endsWith(`/${lang}.json`));
      const get = file ? loaders[file] : undefined;
      p = get ? get().then((m) => addMessages(lang, m.default)) : Promise.resolve();
      p.catch(() => loaded.delete(lang));
      loaded.set(lang, p);
    }
    return p;
  };
  return {
    load,
    loadActive: (lang = $activeLang.get()) => Promise.all([load(DEFAULT_LOCALE), load(lang)]).then(() => undefined),
  };
}

/** Loads the table of the active language (and the fallback's) as the language changes; true once they are in. */
export function useLazyTable(table: LazyTable): boolean {
  const lang = useStore($activeLang);
  const [ready, setReady] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void table.loadActive(lang).then(
      () => live && setReady(lang),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [table, lang]);
  return ready === lang;
}
