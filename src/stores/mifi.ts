// Wi-Fi client state: the purchase in progress (mifiOrder) and the box last seen (mifisn).
import { persistentAtom } from '@nanostores/persistent';
import type { PendingPackageOrder } from '../core/mifi.ts';

export const $mifiOrder = persistentAtom<PendingPackageOrder | null>('mifiOrder', null, {
  encode: (v) => JSON.stringify(v),
  decode: (s) => {
    try {
      return JSON.parse(s) as PendingPackageOrder | null;
    } catch {
      return null;
    }
  },
});

/** The serial of the user's box (mifisn). */
export const $mifisn = persistentAtom<string>('mifisn', '');
