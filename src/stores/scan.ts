// Scan codes (qrcode, zhcode persist). A qrcode clears zhcode and vice versa.
import { persistentAtom } from '@nanostores/persistent';

export const $qrcode = persistentAtom<string>('qrcode', '');
export const $zhcode = persistentAtom<string>('zhcode', '');

export function storeScanCodes(codes: { qrcode: string; zhcode: string }): void {
  $qrcode.set(codes.qrcode);
  $zhcode.set(codes.zhcode);
}
/** Stored Wi-Fi device code (mificode); 'wifi.' codes send a signed-in home to packageDetail. */
export const $mificode = persistentAtom<string>('mificode', '');
