// WeChat Pay's daily trade bill (APIv3 申请交易账单) as settlement lines (reconciliation.ts).
//
//   GET /v3/bill/tradebill?bill_date=yyyy-MM-dd&bill_type=ALL   (signed, its answer verified like every v3 call)
//     → { hash_type: "SHA1", hash_value, download_url }; the bill of a China-time day exists from about 10:00 the next
//       day: before that WeChat answers an error (NO_STATEMENT_EXIST, STATEMENT_CREATING), thrown as ProviderError,
//       so the day is not reconciled (never "matched").
//   GET download_url (signed as well; the file is not signed: its SHA1 is checked against hash_value)
//     → the bill: a header row, one row per payment and per refund (each field prefixed with a backtick), then a
//       summary header (总交易单数,…) and its row. The detail columns read here, by name: 交易时间, 微信订单号,
//       商户订单号 (our outTradeNo: payments.provider_ref), 交易状态 (SUCCESS a payment, REFUND a refund; other rows
//       are skipped), 货币种类, 订单金额 (总金额 in older bills; else 应结订单金额), 退款金额, 微信退款单号, 手续费
//       (a refund's is negative: the fee given back). Amounts are yuan.
//   A payment's row is dated when it was paid, a refund's when WeChat accepted it (China time): [from, to) spans two
//   China-time days, so both bills are read (one page each) and only the rows inside [from, to) are kept.
import { createHash } from 'node:crypto';
import { ProviderError } from '../methods/adapter.ts';
import type { SettlementLine } from '../provider.ts';
import { chinaDays, chinaTime, download, fen } from './china.ts';

export interface WechatBillDeps {
  /** A signed v3 GET whose answer's signature is verified (the adapter's call). */
  get<T>(url: string): Promise<T>;
  /** The Authorization header of a signed GET of this path and query (the adapter's signature). */
  authorization(url: string): string;
  /** The API root the bill must be downloaded from (WeChat's own host: the signed request goes nowhere else). */
  base: string;
  fetch: typeof fetch;
}

const P = 'WeChat Pay';

/** The day's settlement lines, one page per China-time bill of [from, to). */
export async function* wechatpayBills(d: WechatBillDeps, from: Date, to: Date): AsyncGenerator<SettlementLine[]> {
  for (const day of chinaDays(from, to)) {
    const text = await bill(d, day);
    yield parseTradeBill(text)
      .filter((r) => r.at >= from && r.at < to)
      .map((r) => r.line);
  }
}

async function bill(d: WechatBillDeps, day: string): Promise<string> {
  const q = new URLSearchParams({ bill_date: day, bill_type: 'ALL' });
  const a = await d.get<{ hash_type?: string; hash_value?: string; download_url?: string }>(
    `/v3/bill/tradebill?${q.toString()}`,
  );
  if (!a.download_url || !a.hash_value || a.hash_type !== 'SHA1')
    throw new ProviderError('bad_response', `${P}: tradebill answer without a SHA1 hash and download_url`);
  let url: URL;
  try {
    url = new URL(a.download_url);
  } catch {
    throw new ProviderError('bad_response', `${P}: tradebill download_url is not a URL`);
  }
  if (url.origin !== new URL(d.base).origin)
    throw new ProviderError('bad_response', `${P}: tradebill download_url is not on ${new URL(d.base).host}`);
  const path = url.pathname + url.search;
  const bytes = await download(P, d.fetch, url.toString(), {
    Authorization: d.authorization(path),
    Accept: '*/*',
    'User-Agent': 'Powerly/1.0',
  });
  if (createHash('sha1').update(bytes).digest('hex') !== a.hash_value.toLowerCase()) {
    throw new ProviderError('bad_response', `${P}: the bill of ${day} does not match its SHA1`);
  }
  return bytes.toString('utf8');
}

/** A bill's detail rows as settlement lines, each with the moment it is dated. */
export function parseTradeBill(text: string): { at: Date; line: SettlementLine }[] {
  const rows = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  const header = (rows[0] ?? '').split(',').map((h) => h.trim());
  const col = (...names: string[]) => {
    for (const n of names) {
      const i = header.indexOf(n);
      if (i >= 0) return i;
    }
    return -1;
  };
  const need = { time: col('交易时间'), txn: col('微信订单号'), ours: col('商户订单号'), state: col('交易状态') };
  for (const [k, i] of Object.entries(need))
    if (i < 0) throw new ProviderError('bad_response', `${P} bill: no ${k} column`);
  const ix = {
    ...need,
    currency: col('货币种类'),
    total: col('订单金额', '总金额', '应结订单金额'),
    refund: col('退款金额'),
    refundId: col('微信退款单号'),
    outRefund: col('商户退款单号'),
    fee: col('手续费'),
  };
  const out: { at: Date; line: SettlementLine }[] = [];
  let details = 0;
  let i = 1;
  for (; i < rows.length; i++) {
    // Detail rows: every field starts with a backtick (a value may hold a comma: split on ",`").
    if (!rows[i]!.startsWith('`')) break;
    details++;
    const f = rows[i]!.slice(1).split(',`');
    const v = (k: keyof typeof ix) => (ix[k] >= 0 ? (f[ix[k]] ?? '').trim() : '');
    const state = v('state');
    if (state !== 'SUCCESS' && state !== 'REFUND') continue;
    const at = chinaTime(v('time'));
    if (!at) throw new ProviderError('bad_response', `${P} bill: 交易时间 "${v('time')}" is not a time`);
    const currency = v('currency') || 'CNY';
    const fee = fen(P, v('fee'), '手续费');
    const ref = v('ours') || null;
    out.push({
      at,
      line:
        state === 'SUCCESS'
          ? { ref, source: v('txn'), type: 'charge', amount: fen(P, v('total'), '订单金额'), fee, currency }
          : {
              ref,
              source: v('refundId') || v('outRefund') || v('txn'),
              type: 'refund',
              amount: -Math.abs(fen(P, v('refund'), '退款金额')),
              fee,
              currency,
            },
    });
  }
  // The summary (总交易单数,… then its row) counts the detail rows: a bill cut short is refused.
  const summary = (rows[i] ?? '').split(',');
  const count = summary.indexOf('总交易单数');
  if (count < 0) throw new ProviderError('bad_response', `${P} bill: no summary`);
  const counted = Number((rows[i + 1] ?? '').slice(1).split(',`')[count]);
  if (counted !== details)
    throw new ProviderError('bad_response', `${P} bill: ${details} rows, its summary says ${counted}`);
  return out;
}
