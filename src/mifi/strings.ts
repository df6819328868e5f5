// The Wi-Fi screens' strings (locales/mifi/<lang>.json): loaded with those screens, not in the first load.
import { lazyTable, useLazyTable } from '../i18n/lazyTable.ts';

const table = lazyTable(import.meta.glob<{ default: Record<string, unknown> }>('../../locales/mifi/*.json'));

/** Loads the Wi-Fi strings of the active language (and the default's, the fallback); true once they are in. */
export const useMifiStrings = (): boolean => useLazyTable(table);
