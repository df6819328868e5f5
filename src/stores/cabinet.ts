// The scanned cabinet ("Cabinet (scan result)"), persisted so a reload of #/home keeps it.
import { persistentJSON } from '@nanostores/persistent';
import type { Cabinet } from '../api/cabinet.ts';

export const $cabinet = persistentJSON<Cabinet | null>('cabinet', null);
