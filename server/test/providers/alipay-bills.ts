// The trade bills of the Alipay gateway test server (providers/alipay.ts), modelled from Alipay's documentation
// (alipay.data.dataservice.bill.downloadurl.query and the bill files it points to):
//   bill_type "trade", bill_date yyyy-MM-dd → bill_download_url (valid 30 seconds); the bill of a China-time day is
//     made at 10:00 the next day: before that 40004 isp.bill_not_exist; another bill_type or a malformed date → 40004
//     invalid_arguments.
//   GET the URL → a ZIP (names and contents GBK, without ZIP's UTF-8 flag) of "<pid>0156_<yyyyMMdd>_业务明细.csv" (a
//     row per payment and per refund, between # comment lines) and "…_业务明细(汇总).csv". Ids end with a tab.
//     Fee (服务费): 0.60%, negative on a payment, given back (positive) on a refund.
import { randomBytes } from 'node:crypto';
import { zipSync } from 'fflate';
import iconv from 'iconv-lite';

export interface BillTrade {
  tradeNo: string;
  outTradeNo: string;
  subject: string;
  total: number;
  created: number;
  paidAt?: number;
  refunds: Map<string, { amount: number; answer: Record<string, string> }>;
}

const HEADER =
  '支付宝交易号,商户订单号,业务类型,商品名称,创建时间,完成时间,门店编号,门店名称,操作员,终端号,对方账户,订单金额（元）,商家实收（元）,支付宝红包（元）,集分宝（元）,支付宝优惠（元）,商家优惠（元）,券核销金额（元）,券名称,商家红包消费金额（元）,卡消费金额（元）,退款批次号/请求号,服务费（元）,分润（元）,备注';
const RATE = 0.006;
const yuan = (fen: number) => (fen < 0 ? '-' : '') + (Math.abs(fen) / 100).toFixed(2);
const china = (ms: number) => new Date(ms + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

export class AlipayBills {
  readonly pid = '2088101122136241';
  private readonly files = new Map<string, { bytes: Uint8Array; until: number }>();
  /** Trades made outside the app's API calls that the bill also lists (say, a cashier's QR code). */
  readonly extra: BillTrade[] = [];

  constructor(private readonly source: () => { trades: BillTrade[]; now: number; base: string }) {}

  /** The detail CSV of a China-time day (text; GBK-encoded into the ZIP). */
  detail(day: string): string {
    const rows: string[] = [];
    let count = 0;
    let income = 0;
    const row = (t: BillTrade, kind: '交易' | '退款', at: number, amount: number, batch: string) => {
      const fee = Math.round(Math.abs(amount) * RATE) * (kind === '交易' ? -1 : 1);
      rows.push(
        [
          `${t.tradeNo}\t`,
          `${t.outTradeNo}\t`,
          kind,
          t.subject.replaceAll(',', '，'),
          china(t.created),
          china(at),
          '',
          '',
          '',
          '',
          'buy***@sandbox.com',
          yuan(amount),
          yuan(amount),
          '0.00',
          '0.00',
          '0.00',
          '0.00',
          '0.00',
          '',
          '0.00',
          '0.00',
          batch ? `${batch}\t` : '',
          yuan(fee),
          '0.00',
          '',
        ].join(','),
      );
      count++;
      income += amount;
    };
    for (const t of [...this.source().trades, ...this.extra]) {
      if (t.paidAt && china(t.paidAt).startsWith(day)) row(t, '交易', t.paidAt, t.total, '');
      for (const [reqNo, r] of t.refunds) {
        const at = Date.parse(`${r.answer.gmt_refund_pay!.replace(' ', 'T')}+08:00`);
        if (china(at).startsWith(day)) row(t, '退款', at, -r.amount, reqNo);
      }
    }
    return (
      [
        '#支付宝业务明细查询',
        `#账号：[${this.pid}0156]`,
        `#起始日期：[${day.replace(/-(\d+)-(\d+)$/, '年$1月$2日')} 00:00:00]   终止日期：[${day} 24:00:00]`,
        '#-----------------------------------------业务明细列表----------------------------------------',
        HEADER,
        ...rows,
        '#-----------------------------------------业务明细列表结束------------------------------------',
        `#交易合计：${count}笔，商家实收共${yuan(income)}元，商家优惠共0.00元`,
        `#导出时间：[${china(this.source().now)}]`,
      ].join('\r\n') + '\r\n'
    );
  }

  /** alipay.data.dataservice.bill.downloadurl.query: the answer's fields, or the failure [sub_code, sub_msg]. */
  query(biz: Record<string, unknown>): { url: string } | { fail: [string, string] } {
    const day = String(biz.bill_date ?? '');
    if (biz.bill_type !== 'trade' && biz.bill_type !== 'signcustomer')
      return { fail: ['invalid_arguments', '账单类型不合法'] };
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return { fail: ['invalid_arguments', '账单日期不合法'] };
    const { now, base } = this.source();
    if (now < Date.parse(`${day}T10:00:00+08:00`) + 86_400_000) return { fail: ['isp.bill_not_exist', '账单不存在'] };
    const name = (suffix: string) => `${this.pid}0156_${day.replaceAll('-', '')}_${suffix}.csv`;
    const gbk = (s: string) => iconv.encode(s, 'gbk');
    // ZIP names in GBK without the UTF-8 flag: written as placeholders of the same byte length, then replaced.
    const entries = [name('业务明细'), name('业务明细(汇总)')];
    const holders = entries.map((n, i) => String(i).repeat(gbk(n).length));
    const zip = zipSync({
      [holders[0]!]: new Uint8Array(gbk(this.detail(day))),
      [holders[1]!]: new Uint8Array(
        gbk(`#支付宝业务汇总查询\r\n门店编号,门店名称,交易订单总笔数,退款订单总笔数\r\n,,0,0\r\n`),
      ),
    });
    const buf = Buffer.from(zip);
    entries.forEach((n, i) => {
      for (let at = buf.indexOf(holders[i]!); at >= 0; at = buf.indexOf(holders[i]!, at + 1)) gbk(n).copy(buf, at);
    });
    const token = randomBytes(16).toString('hex');
    this.files.set(token, { bytes: buf, until: now + 30_000 });
    return {
      url: `${base}/bill/download?downloadFileName=${encodeURIComponent(`${this.pid}0156_${day.replaceAll('-', '')}.csv.zip`)}&bizType=trade&token=${token}`,
    };
  }

  /** GET the bill (within 30 seconds of asking). */
  download(q: URLSearchParams): Uint8Array | undefined {
    const f = this.files.get(q.get('token') ?? '');
    return f && this.source().now <= f.until ? f.bytes : undefined;
  }
}
