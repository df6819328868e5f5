// What the WeChat Pay and Alipay daily bills share: each is a China-time (UTC+8) day, amounts are yuan with two
// decimals (a fee may carry more), and a bill for day D can be asked for from 10:00 on D+1 (China time).
import { ProviderError } from '../methods/adapter.ts';

const CST_MS = 8 * 3_600_000;

/** The China-time days (yyyy-MM-dd) that [from, to) touches: a UTC day spans two of them. */
export function chinaDays(from: Date, to: Date): string[] {
  const out: string[] = [];
  const last = new Date(to.getTime() - 1 + CST_MS).toISOString().slice(0, 10);
  for (let d = new Date(from.getTime() + CST_MS).toISOString().slice(0, 10); d <= last;) {
    out.push(d);
    d = new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  }
  return out;
}

/** A bill's China-time "yyyy-MM-dd HH:mm:ss" as an instant; undefined when it is not one. */
export function chinaTime(s: string): Date | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})$/.exec(s.trim());
  if (!m) return undefined;
  const t = Date.parse(`${m[1]}T${m[2]}+08:00`);
  return Number.isNaN(t) ? undefined : new Date(t);
}

/** Yuan ("12.50", "-0.12", "0.01000") as fen, rounded to the fen; a value that is not a number is a bad bill. */
export function fen(provider: string, value: string | undefined, column: string): number {
  const v = (value ?? '').trim();
  if (v === '') return 0;
  if (!/^-?\d+(\.\d+)?$/.test(v))
    throw new ProviderError('bad_response', `${provider} bill: ${column} "${v}" is not an amount`);
  return Math.round(Number(v) * 100);
}

/** Downloads a bill file (bytes exactly as sent: its hash is checked over them). */
export async function download(
  provider: string,
  fetchFn: typeof fetch,
  url: string,
  headers: Record<string, string>,
  timeoutMs = 60_000,
): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetchFn(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new ProviderError('network', `${provider} bill download: ${(err as Error).message}`);
  }
  const body = Buffer.from(await res.arrayBuffer());
  if (!res.ok) {
    let code: string | undefined;
    try {
      code = (JSON.parse(body.toString('utf8')) as { code?: string }).code;
    } catch {
      /* not JSON */
    }
    throw new ProviderError(
      code ?? (res.status >= 500 ? 'provider_unavailable' : 'bad_response'),
      `${provider} bill download: HTTP ${res.status}`,
      res.status,
    );
  }
  return body;
}
