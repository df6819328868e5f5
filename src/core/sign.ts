// The timestamp sign of saas/sendVerifyCode: derived from the timestamp string (seconds) with its
// zeros replaced by 8, plus a fixed suffix, hashed. Pure: the client hashes with WebCrypto, the server with
// node:crypto, both SHA-256 hex of this material.
export const SIGN_SUFFIX = 'powerly-sms-v1';
/** How far a timestamp may be from the server's clock (seconds). */
export const SIGN_WINDOW_S = 300;

export function signMaterial(timestampSeconds: string): string {
  return timestampSeconds.replace(/0/g, '8') + SIGN_SUFFIX;
}

/** SMS codes have 4 digits. */
export const CODE_LENGTH = 4;
