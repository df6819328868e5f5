// Alipay's daily trade bill (业务账单) as settlement lines (reconciliation.ts).
//
//   alipay.data.dataservice.bill.downloadurl.query {bill_type: "trade", bill_date: yyyy-MM-dd} (a signed gateway call,
//     its answer verified like every call) → bill_download_url, valid for 30 seconds. The bill of a China-time day
//     exists from the next morning: before that Alipay answers 40004 isp.bill_not_exist, thrown as ProviderError, so
//     the day is not reconciled (never "matched").
//   GET bill_download_url → a ZIP of GBK-encoded CSV files (names in GBK too): "<pid>_<date>_业务明细.csv" has a
//     row per payment and per refund; "…_业务明细(汇总).csv" sums them (not read). Lines starting with # are
//     comments (title, account, the closing totals). Columns read, by name: 支付宝交易号, 商户订单号 (our outTradeNo:
//     payments.provider_ref), 业务类型 (交易 a payment, 退款 a refund; others skipped), 完成时间 (China time),
//     订单金额(元) (a refund's is negative), 退款批次号/请求号, 服务费(元) (negative: the fee Alipay kept; a refund's
//     positive: given back). Alipay pads ids with a tab (so that spreadsheets keep them as text): values are trimmed.
//   [from, to) spans two China-time days: both bills are read (one page each), keeping the rows inside [from, to).
import { unzipSync } from 'fflate';
import iconv from 'iconv-lite';
import { ProviderError } from '../methods/adapter.ts';
import type { SettlementLine } from '../provider.ts';
import { chinaDays, chinaTime, download, fen } from './china.ts';

export interface AlipayBillDeps {
  /** One verified gateway call (the adapter's): the business answer, or a ProviderError. */
  call(method: string, biz: Record<string, unknown>): Promise<Record<string, string | undefined>>;
  fetch: typeof fetch;
}

const P = 'Alipay';
const DETAIL = '_业务明细.csv';

/** The day's settlement lines, one page per China-time bill of [from, to). */
export async function* alipayBills(d: AlipayBillDeps, from: Date, to: Date): AsyncGenerator<SettlementLine[]> {
  for (const day of chinaDays(from, to)) {
    const a = await d.call('alipay.data.dataservice.bill.downloadurl.query', { bill_type: 'trade', bill_date: day });
    const url = a.bill_download_url;
    if (!url || !/^https?:\/\//.test(url))
      throw new ProviderError('bad_response', `${P}: no bill_download_url for ${day}`);
    const csv = detailFile(await download(P, d.fetch, url, { accept: '*/*' }));
    yield parseBusinessDetail(csv)
      .filter((r) => r.at >= from && r.at < to)
      .map((r) => r.line);
  }
}

/** The detail CSV of a bill's ZIP, decoded from GBK. */
export function detailFile(zip: Uint8Array): string {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip);
  } catch {
    throw new ProviderError('bad_response', `${P}: the bill is not a ZIP`);
  }
  for (const [name, bytes] of Object.entries(files)) {
    // A name without ZIP's UTF-8 flag comes decoded as Latin-1: its bytes are GBK.
    const gbkName = iconv.decode(Buffer.from(name, 'latin1'), 'gbk');
    if (name.endsWith(DETAIL) || gbkName.endsWith(DETAIL)) return iconv.decode(Buffer.from(bytes), 'gbk');
  }
  throw new ProviderError('bad_response', `${P}: the bill has no …${DETAIL}`);
}

const norm = (h: string) => h.replace(/（/g, '(').replace(/）/g, ')').trim();

/** The detail rows as settlement lines, each with the moment it completed. */
export function parseBusinessDetail(text: string): { at: Date; line: SettlementLine }[] {
  const rows = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const header = (rows[0] ?? '').split(',').map(norm);
  const col = (name: string) => header.indexOf(name);
  const ix = {
    trade: col('支付宝交易号'),
    ours: col('商户订单号'),
    kind: col('业务类型'),
    done: col('完成时间'),
    amount: col('订单金额(元)'),
    batch: col('退款批次号/请求号'),
    fee: col('服务费(元)'),
  };
  for (const [k, i] of Object.entries(ix))
    if (i < 0) throw new ProviderError('bad_response', `${P} bill: no ${k} column`);
  const out: { at: Date; line: SettlementLine }[] = [];
  for (const row of rows.slice(1)) {
    const f = row.split(',');
    // Alipay does not quote: a row whose fields do not line up with the header is refused rather than misread.
    if (f.length !== header.length)
      throw new ProviderError('bad_response', `${P} bill: a row has ${f.length} fields, the header ${header.length}`);
    const v = (k: keyof typeof ix) => (f[ix[k]] ?? '').trim();
    const kind = v('kind');
    if (kind !== '交易' && kind !== '退款') continue;
    const at = chinaTime(v('done'));
    if (!at) throw new ProviderError('bad_response', `${P} bill: 完成时间 "${v('done')}" is not a time`);
    const amount = Math.abs(fen(P, v('amount'), '订单金额(元)'));
    const line: SettlementLine = {
      ref: v('ours') || null,
      source: kind === '交易' ? v('trade') : `${v('trade')}/${v('batch')}`,
      type: kind === '交易' ? 'charge' : 'refund',
      amount: kind === '交易' ? amount : -amount,
      fee: 0 - fen(P, v('fee'), '服务费(元)'),
      currency: 'CNY',
    };
    out.push({ at, line });
  }
  return out;
}
