import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const uuid = () => randomUUID();
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Order numbers: sortable by time, unguessable tail. */
export function orderNo(now: Date): string {
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
  return `PO${stamp}${randomBytes(4).toString('hex').toUpperCase()}`;
}
