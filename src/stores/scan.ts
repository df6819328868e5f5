// Scan codes (spec §3: qrcode, zhcode persist). A qrcode clears zhcode and vice versa.
import { persistentAtom } from '@nanostores/persistent';

export const $qrcode = persistentAtom<string>('qrcode', '');
export const $zhcode = persistentAtom<string>('zhcode', '');

export function storeScanCodes(codes: { qrcode: string; zhcode: string }): void {
  $qrcode.set(codes.qrcode);
  $zhcode.set(codes.zhcode);
}
