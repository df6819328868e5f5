// The trade bills of the WeChat Pay API v3 test server (providers/wechatpay.ts), modelled from WeChat Pay's
// documentation (申请交易账单, 交易账单文件格式说明):
//   GET /v3/bill/tradebill?bill_date=yyyy-MM-dd&bill_type=ALL (signed request, signed answer)
//     → {hash_type: "SHA1", hash_value, download_url}; the bill of a China-time day is made at 10:00 the next day:
//       before that (and for a day not yet over) 400 NO_STATEMENT_EXIST; a date that is not one → 400 PARAM_ERROR.
//   GET /v3/billdownload/file?token=… (signed request) → the bill file as is (not signed: its SHA1 is in the answer
//     above): the ALL header, a row per payment (dated when paid) and per refund (dated when accepted), every field
//     prefixed with a backtick, then the summary header and its row. Fee: 0.60%, a refund's given back (negative).
import { createHash, randomBytes } from 'node:crypto';

export interface BillTxn {
  appid: string;
  mchid: string;
  out_trade_no: string;
  transaction_id?: string;
  trade_type: string;
  description: string;
  amount: { total: number };
  payer: { openid: string };
  success_time?: string;
}
export interface BillRefund {
  refund_id: string;
  out_refund_no: string;
  out_trade_no: string;
  transaction_id: string;
  status: string;
  create_time: string;
  amount: { refund: number };
}

export class BillError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const HEADER =
  '交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,充值券退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额,费率备注';
const SUMMARY = '总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额,申请退款总金额';
const RATE = 0.006;
const yuan = (fen: number) => (fen / 100).toFixed(2);
/** "2026-11-21T18:00:00+08:00" → "2026-11-21 18:00:00" (WeChat's times are China time already). */
const cst = (iso: string) => iso.slice(0, 19).replace('T', ' ');
const row = (fields: string[]) => fields.map((f) => '`' + f).join(',');

export class WechatBills {
  private readonly files = new Map<string, { mchid: string; bytes: Buffer }>();
  /** Payments made outside the merchant's API calls that the bill also lists (say, a cashier's QR code). */
  readonly extra: BillTxn[] = [];
  /** The next file is damaged on the way (a byte changed after its hash was taken). */
  corruptNext = false;

  constructor(private readonly source: () => { txns: BillTxn[]; refunds: BillRefund[]; now: Date; url: string }) {}

  /** The bill file of a merchant's China-time day, exactly as WeChat Pay writes it. */
  file(mchid: string, day: string): Buffer {
    const { txns, refunds } = this.source();
    const lines: string[] = [HEADER];
    let settled = 0;
    let refunded = 0;
    let fees = 0;
    let n = 0;
    const all = [...txns, ...this.extra].filter((t) => t.mchid === mchid);
    for (const t of all.filter((x) => x.transaction_id && x.success_time && cst(x.success_time).startsWith(day))) {
      const fee = Math.round(t.amount.total * RATE);
      lines.push(
        row([
          cst(t.success_time!),
          t.appid,
          mchid,
          '0',
          '',
          t.transaction_id!,
          t.out_trade_no,
          t.payer.openid,
          t.trade_type,
          'SUCCESS',
          'OTHERS',
          'CNY',
          yuan(t.amount.total),
          '0.00',
          '0',
          '0',
          '0.00',
          '0.00',
          '',
          '',
          t.description,
          '',
          (fee / 100).toFixed(5),
          '0.60%',
          yuan(t.amount.total),
          '0.00',
          '',
        ]),
      );
      settled += t.amount.total;
      fees += fee;
      n++;
    }
    for (const r of refunds.filter((x) => cst(x.create_time).startsWith(day))) {
      const t = all.find((x) => x.out_trade_no === r.out_trade_no);
      if (!t) continue;
      const fee = -Math.round(r.amount.refund * RATE);
      lines.push(
        row([
          cst(r.create_time),
          t.appid,
          mchid,
          '0',
          '',
          r.transaction_id,
          r.out_trade_no,
          t.payer.openid,
          t.trade_type,
          'REFUND',
          'OTHERS',
          'CNY',
          '0.00',
          '0.00',
          r.refund_id,
          r.out_refund_no,
          yuan(r.amount.refund),
          '0.00',
          'ORIGINAL',
          r.status === 'PROCESSING' ? 'PROCESSING' : 'SUCCESS',
          t.description,
          '',
          (fee / 100).toFixed(5),
          '0.60%',
          '0.00',
          yuan(r.amount.refund),
          '',
        ]),
      );
      refunded += r.amount.refund;
      fees += fee;
      n++;
    }
    lines.push(
      SUMMARY,
      row([String(n), yuan(settled), yuan(refunded), '0.00', (fees / 100).toFixed(5), yuan(settled), yuan(refunded)]),
    );
    return Buffer.from(lines.join('\r\n') + '\r\n', 'utf8');
  }

  /** GET /v3/bill/tradebill. */
  tradebill(mchid: string, q: URLSearchParams) {
    const day = q.get('bill_date') ?? '';
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00+08:00`)))
      throw new BillError(400, 'PARAM_ERROR', 'bill_date 格式错误');
    if (!['ALL', 'SUCCESS', 'REFUND', null].includes(q.get('bill_type')))
      throw new BillError(400, 'PARAM_ERROR', 'bill_type 取值错误');
    const { now, url } = this.source();
    // Made at 10:00 China time the day after.
    if (now.getTime() < Date.parse(`${day}T10:00:00+08:00`) + 86_400_000)
      throw new BillError(400, 'NO_STATEMENT_EXIST', '账单文件不存在');
    const bytes = this.file(mchid, day);
    const token = randomBytes(24).toString('base64url');
    const hash = createHash('sha1').update(bytes).digest('hex');
    if (this.corruptNext) {
      this.corruptNext = false;
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 3) ^ 1, bytes.length - 3);
    }
    this.files.set(token, { mchid, bytes });
    return { hash_type: 'SHA1', hash_value: hash, download_url: `${url}/v3/billdownload/file?token=${token}` };
  }

  /** GET /v3/billdownload/file?token= (the merchant who asked for it only). */
  download(mchid: string, q: URLSearchParams): Buffer {
    const f = this.files.get(q.get('token') ?? '');
    if (!f || f.mchid !== mchid) throw new BillError(400, 'INVALID_REQUEST', '下载链接已失效，请重新申请');
    return f.bytes;
  }
}
