// Code links ("Scan flow"): a scanned text is a bare cabinet code or a link of ours carrying the code as
// qrcode=, its alias qr=, or zhcode= (the package code), in the query or in the hash route's query
// (https://host/#/?qrcode=X). One reader for the flows, the embed and the server's scan.

/** The parameters a code link may carry the code in, in order of preference. */
export const CODE_PARAMS = ['qrcode', 'qr', 'zhcode'] as const;

/** Cabinet codes as the seeded and real cabinets carry them (letters, digits, dash, underscore, dot). */
export const QRCODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The code parameter of a link's text (query or hash query), decoded; null when it carries none. */
export function linkCode(text: string): string | null {
  for (const name of CODE_PARAMS) {
    const m = new RegExp(`[?&#]${name}=([^&#]+)`).exec(text);
    if (m) return safeDecode(m[1]!).trim();
  }
  return null;
}

/**
 * The code a route's query carries: a cabinet code as qrcode or its alias qr, else a package code as
 * zhcode; null when it carries none.
 */
export function queryCode(q: URLSearchParams): { key: 'qrcode' | 'zhcode'; code: string } | null {
  const qrcode = q.get('qrcode') || q.get('qr');
  if (qrcode) return { key: 'qrcode', code: qrcode };
  const zhcode = q.get('zhcode');
  return zhcode ? { key: 'zhcode', code: zhcode } : null;
}

/** decodeURIComponent that leaves a malformed escape (a bare `%`) or an encoded NUL as it is instead. */
function safeDecode(s: string): string {
  try {
    const d = decodeURIComponent(s);
    return d.includes('\u0000') ? s : d;
  } catch {
    return s;
  }
}

/** What the server's scan looks up: the link's code, else the text itself (a bare code), trimmed. */
export function cabinetCodeFrom(text: string): string {
  return linkCode(text) ?? safeDecode(text).trim();
}

/**
 * A scanned code, validated before use (the embed reads codes from a host): either a bare cabinet code, or an
 * http(s) code link whose code is then validated. Returns the cabinet code or null; anything else (javascript:,
 * data:, text) is refused.
 */
export function parseScannedCode(input: string): string | null {
  const s = input.trim();
  if (QRCODE_PATTERN.test(s)) return s;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  let code: string | null;
  try {
    code = linkCode(url.href);
  } catch {
    return null;
  }
  return code && QRCODE_PATTERN.test(code) ? code : null;
}
