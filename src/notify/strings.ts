// The strings of the deposit-refund note and the notification offer (locales/returns/<lang>.json), loaded with
// those panels rather than in the first load (src/i18n/lazyTable.ts).
import { lazyTable, useLazyTable } from '../i18n/lazyTable.ts';

const table = lazyTable(import.meta.glob<{ default: Record<string, unknown> }>('../../locales/returns/*.json'));

/** True once the active language's strings (and the fallback's) are in. */
export const useReturnsStrings = (): boolean => useLazyTable(table);
