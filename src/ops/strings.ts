// The console's strings (locales/ops/<lang>.json, namespace `ops`), loaded per language like the payment and
// Wi-Fi screens' tables (src/i18n/lazyTable.ts).
import { lazyTable, useLazyTable } from '../i18n/lazyTable.ts';

const table = lazyTable(import.meta.glob<{ default: Record<string, unknown> }>('../../locales/ops/*.json'));

/** True once the active language's console strings (and the fallback's) are in. */
export const useOpsStrings = (): boolean => useLazyTable(table);
