// The payment screens' strings (locales/pay/<lang>.json): loaded with those screens, not in the first load.
import { lazyTable, useLazyTable } from '../i18n/lazyTable.ts';

const table = lazyTable(import.meta.glob<{ default: Record<string, unknown> }>('../../locales/pay/*.json'));
/** The active language's payment strings and the fallback's. */
export const loadActivePayStrings = (): Promise<void> => table.loadActive();

// Every screen that shows these strings imports this module, so it evaluates (and its lazy chunk resolves) only
// once the active language's table and the fallback's are in: the screen never renders a first frame without
// them and then grows when they arrive (a layout shift under what the person is typing, seen in the embed).
await table.loadActive().catch(() => undefined);

/** Loads the payment strings of the active language (and the default's, the fallback); true once they are in. */
export const usePayStrings = (): boolean => useLazyTable(table);
