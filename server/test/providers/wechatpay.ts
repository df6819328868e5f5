// A WeChat Pay API v3 test server (test tree only, never shipped): the direct-merchant endpoints the wechatpay adapter
// calls, modelled from WeChat Pay's API v3 documentation.
//   auth        Authorization: WECHATPAY2-SHA256-RSA2048 mchid,nonce_str,signature,timestamp,serial_no; the signature
//               (SHA256-RSA over "METHOD\nurl\ntimestamp\nnonce\nbody\n") checked with the merchant's public key,
//               the serial with the merchant certificate's, the timestamp within 5 minutes → else 401 SIGN_ERROR.
//   answers     signed with the platform key: Wechatpay-Timestamp/Nonce/Serial/Signature over "ts\nnonce\nbody\n";
//               errors are {code, message} with WeChat's HTTP statuses (400 PARAM_ERROR / INVALID_REQUEST /
//               ORDER_CLOSED, 401 SIGN_ERROR, 403 OUT_TRADE_NO_USED / NOT_ENOUGH, 404 ORDER_NOT_EXIST /
//               RESOURCE_NOT_EXISTS, 500 SYSTEM_ERROR).
//   JSAPI       POST /v3/pay/transactions/jsapi (same out_trade_no + same request → the same prepay_id; a different
//               request → OUT_TRADE_NO_USED), GET …/out-trade-no/{n}?mchid=, POST …/{n}/close (204).
//               trade_state NOTPAY → SUCCESS (pay) | PAYERROR (declined, 余额不足) | CLOSED; REFUND once refunded.
//   H5          POST /v3/pay/transactions/h5: as JSAPI without payer, with scene_info.payer_client_ip and
//               scene_info.h5_info.type required (PARAM_ERROR) → h5_url (trade_type MWEB); then as JSAPI.
//   refunds     POST /v3/refund/domestic/refunds: amount.total must be the order's, refunds ≤ what is left
//               (INVALID_REQUEST), out_refund_no replays the first refund, status PROCESSING → SUCCESS.
//   pay score   POST /v3/payscore/serviceorder (CREATED + package), GET ?service_id&out_order_no&appid,
//               POST …/{n}/complete (DOING → DONE once deducted; any total, as WeChat allows more than the risk
//               fund), POST …/{n}/cancel (REVOKED).
// The customer's side (paying in WeChat, confirming the pay-score order, WeChat's deduction) are methods here, and
// notification() makes a delivery exactly as WeChat Pay sends one (AEAD_AES_256_GCM resource, platform signature).
import {
  createCipheriv,
  createHmac,
  createSign,
  createVerify,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BillError, WechatBills } from './wechatpay-bills.ts';

export interface Merchant {
  mchId: string;
  appId: string;
  serialNo: string;
  publicKey: KeyObject;
  apiV3Key: string;
  apiV2Key: string;
  serviceId: string;
}

/** A merchant's key pair as the merchant platform issues it (PEM), with a certificate serial. */
export function merchantKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey,
    serialNo: randomBytes(20).toString('hex').toUpperCase(),
  };
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Txn {
  appid: string;
  mchid: string;
  out_trade_no: string;
  transaction_id?: string;
  trade_type: string;
  trade_state: string;
  trade_state_desc: string;
  description: string;
  notify_url: string;
  amount: { total: number; currency: string };
  payer: { openid: string };
  prepay_id: string;
  success_time?: string;
  request: string;
  refunded: number;
}

interface RefundRec {
  refund_id: string;
  out_refund_no: string;
  transaction_id: string;
  out_trade_no: string;
  status: string;
  create_time: string;
  success_time?: string;
  amount: { total: number; refund: number; currency: string };
  request: string;
}

interface ServiceOrder {
  appid: string;
  mchid: string;
  service_id: string;
  out_order_no: string;
  service_introduction: string;
  state: 'CREATED' | 'DOING' | 'DONE' | 'REVOKED' | 'EXPIRED';
  state_description?: string;
  risk_fund: { name: string; amount: number; description?: string };
  time_range: { start_time: string; end_time?: string };
  notify_url: string;
  need_collection?: boolean;
  total_amount?: number;
  post_payments?: { name: string; amount: number; description?: string; count?: number }[];
  collection?: {
    state: string;
    total_amount: number;
    paying_amount: number;
    paid_amount: number;
    details: { seq: number; amount: number; paid_type: string; paid_time: string; transaction_id: string }[];
  };
  order_id: string;
  package: string;
  openid?: string;
  request: string;
}

const iso = (d: Date) => new Date(d.getTime() + 8 * 3_600_000).toISOString().slice(0, 19) + '+08:00';

export class FakeWechatPay {
  private server!: Server;
  port = 0;
  readonly platformSerial = `PUB_KEY_ID_${randomBytes(12).toString('hex').toUpperCase()}`;
  private readonly platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
  /** The platform public key as the merchant downloads it (PEM). */
  readonly platformPublicKeyPem = this.platform.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  private readonly merchants = new Map<string, Merchant>();
  private readonly txns = new Map<string, Txn>();
  private readonly byTransactionId = new Map<string, Txn>();
  private readonly refunds = new Map<string, RefundRec>();
  private readonly orders = new Map<string, ServiceOrder>();
  private seq = 0;
  /** The trade bills (providers/wechatpay-bills.ts). */
  readonly bills = new WechatBills(() => ({
    txns: [...this.txns.values()],
    refunds: [...this.refunds.values()],
    now: this.now(),
    url: this.url,
  }));
  /** Every request (method, path with query, authorised merchant). */
  readonly requests: { method: string; url: string; mchid?: string; body: string }[] = [];
  /** Sign the next N successful answers with the wrong key (a man in the middle). */
  forgeNext = 0;
  /** Fail the next N requests with 500 SYSTEM_ERROR. */
  failNext = 0;
  now = () => new Date();

  async start() {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop() {
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Registers a merchant (its API certificate's public key, keys, pay-score service). */
  addMerchant(m: Merchant) {
    this.merchants.set(m.mchId, m);
  }

  private id(digits: number) {
    const s = `${Date.now()}${++this.seq}${Math.floor(Math.random() * 1e9)}`;
    return s.padEnd(digits, '0').slice(0, digits);
  }

  private signWith(key: KeyObject, message: string) {
    return createSign('RSA-SHA256').update(message).sign(key, 'base64');
  }

  /** Wechatpay-* headers over a body, as WeChat Pay signs its answers and notifications. */
  private signatureHeaders(
    body: string,
    key = this.platform.privateKey,
    timestamp = Math.floor(this.now().getTime() / 1000),
  ) {
    const nonce = randomBytes(16).toString('hex');
    return {
      'Wechatpay-Timestamp': String(timestamp),
      'Wechatpay-Nonce': nonce,
      'Wechatpay-Serial': this.platformSerial,
      'Wechatpay-Signature': this.signWith(key, `${timestamp}\n${nonce}\n${body}\n`),
      'Wechatpay-Signature-Type': 'WECHATPAY2-SHA256-RSA2048',
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const requestId = `08${randomBytes(14).toString('hex').toUpperCase()}`;
    const send = (status: number, obj?: unknown) => {
      const body = obj === undefined ? '' : JSON.stringify(obj);
      const ok = status >= 200 && status < 300;
      let headers: Record<string, string> = { 'Request-ID': requestId };
      if (ok || status >= 400) {
        const forge = ok && this.forgeNext > 0;
        if (forge) this.forgeNext--;
        headers = {
          ...headers,
          ...this.signatureHeaders(
            body,
            forge ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey : undefined,
          ),
        };
      }
      if (body) headers['Content-Type'] = 'application/json; charset=utf-8';
      res.writeHead(status, headers);
      res.end(body);
    };
    let mchid: string | undefined;
    try {
      const m = this.authenticate(req, method, url, raw);
      mchid = m.mchId;
      this.requests.push({ method, url, mchid, body: raw });
      if (this.failNext > 0) {
        this.failNext--;
        throw new ApiError(500, 'SYSTEM_ERROR', '系统错误');
      }
      let body: unknown = {};
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          throw new ApiError(400, 'PARAM_ERROR', '请求体不是合法的JSON');
        }
      }
      const out = this.route(m, method, new URL(url, 'http://x'), body as Record<string, unknown>, raw);
      // A bill file: sent as is, unsigned.
      if (Buffer.isBuffer(out))
        return void res
          .writeHead(200, { 'Request-ID': requestId, 'Content-Type': 'application/octet-stream' })
          .end(out);
      if (out === null) send(204);
      else send(200, out);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (!mchid) this.requests.push({ method, url, body: raw });
      send(err.status, { code: err.code, message: err.message });
    }
  }

  private authenticate(req: IncomingMessage, method: string, url: string, raw: string): Merchant {
    const auth = req.headers.authorization ?? '';
    const m = /^WECHATPAY2-SHA256-RSA2048 (.+)$/.exec(auth);
    if (!m) throw new ApiError(401, 'SIGN_ERROR', '错误的签名认证方式');
    const f: Record<string, string> = {};
    for (const part of m[1]!.matchAll(/(\w+)="([^"]*)"/g)) f[part[1]!] = part[2]!;
    const merchant = this.merchants.get(f.mchid ?? '');
    if (!merchant) throw new ApiError(400, 'MCH_NOT_EXISTS', '商户号不存在');
    if (f.serial_no !== merchant.serialNo) throw new ApiError(401, 'SIGN_ERROR', '商户证书序列号有误');
    const ts = Number(f.timestamp);
    if (!Number.isInteger(ts) || Math.abs(ts - Math.floor(this.now().getTime() / 1000)) > 300)
      throw new ApiError(401, 'SIGN_ERROR', '请求的时间戳已过期');
    const message = `${method}\n${url}\n${f.timestamp}\n${f.nonce_str}\n${raw}\n`;
    let ok: boolean;
    try {
      ok = createVerify('RSA-SHA256')
        .update(message)
        .verify(merchant.publicKey, f.signature ?? '', 'base64');
    } catch {
      ok = false;
    }
    if (!ok) throw new ApiError(401, 'SIGN_ERROR', '签名错误');
    return merchant;
  }

  private route(m: Merchant, method: string, url: URL, b: Record<string, unknown>, raw: string): unknown {
    const p = url.pathname;
    let r: RegExpExecArray | null;
    if (method === 'POST' && p === '/v3/pay/transactions/jsapi') return this.jsapi(m, b, raw);
    if (method === 'POST' && p === '/v3/pay/transactions/h5') {
      const scene = b.scene_info as { payer_client_ip?: unknown; h5_info?: { type?: unknown } } | undefined;
      if (typeof scene?.payer_client_ip !== 'string' || !scene.payer_client_ip)
        throw new ApiError(400, 'PARAM_ERROR', '缺少参数 scene_info.payer_client_ip');
      if (typeof scene.h5_info?.type !== 'string' || !scene.h5_info.type)
        throw new ApiError(400, 'PARAM_ERROR', '缺少参数 scene_info.h5_info.type');
      const { prepay_id } = this.jsapi(m, b, raw, 'MWEB');
      return {
        h5_url: `https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=${prepay_id}&package=${this.id(10)}`,
      };
    }
    if (method === 'GET' && (r = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)$/.exec(p))) {
      if (url.searchParams.get('mchid') !== m.mchId) throw new ApiError(400, 'PARAM_ERROR', 'mchid 与请求商户号不一致');
      return this.view(this.txn(m, decodeURIComponent(r[1]!)));
    }
    if (method === 'POST' && (r = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)\/close$/.exec(p))) {
      if (b.mchid !== m.mchId) throw new ApiError(400, 'PARAM_ERROR', 'mchid 与请求商户号不一致');
      const t = this.txn(m, decodeURIComponent(r[1]!));
      if (t.trade_state === 'SUCCESS' || t.trade_state === 'REFUND')
        throw new ApiError(400, 'ORDER_PAID', '订单已支付');
      t.trade_state = 'CLOSED';
      t.trade_state_desc = '订单已关闭';
      return null;
    }
    if (method === 'POST' && p === '/v3/refund/domestic/refunds') return this.refund(m, b, raw);
    try {
      if (method === 'GET' && p === '/v3/bill/tradebill') return this.bills.tradebill(m.mchId, url.searchParams);
      if (method === 'GET' && p === '/v3/billdownload/file') return this.bills.download(m.mchId, url.searchParams);
    } catch (e) {
      throw e instanceof BillError ? new ApiError(e.status, e.code, e.message) : e;
    }
    if (method === 'POST' && p === '/v3/payscore/serviceorder') return this.createScore(m, b, raw);
    if (method === 'GET' && p === '/v3/payscore/serviceorder') {
      const q = url.searchParams;
      if (q.get('service_id') !== m.serviceId || q.get('appid') !== m.appId)
        throw new ApiError(400, 'PARAM_ERROR', 'service_id 或 appid 错误');
      return this.scoreView(this.order(m, q.get('out_order_no') ?? ''));
    }
    if (method === 'POST' && (r = /^\/v3\/payscore\/serviceorder\/([^/]+)\/(complete|cancel)$/.exec(p))) {
      if (b.service_id !== m.serviceId || b.appid !== m.appId)
        throw new ApiError(400, 'PARAM_ERROR', 'service_id 或 appid 错误');
      const o = this.order(m, decodeURIComponent(r[1]!));
      return r[2] === 'complete' ? this.completeScore(o, b) : this.cancelScore(o, b);
    }
    throw new ApiError(404, 'RESOURCE_NOT_EXISTS', `无此接口: ${method} ${p}`);
  }

  // ---- JSAPI ------------------------------------------------------------------------------------------------------

  private jsapi(m: Merchant, b: Record<string, unknown>, raw: string, tradeType: 'JSAPI' | 'MWEB' = 'JSAPI') {
    if (b.appid !== m.appId || b.mchid !== m.mchId)
      throw new ApiError(400, 'APPID_MCHID_NOT_MATCH', 'appid和mch_id不匹配');
    const no = String(b.out_trade_no ?? '');
    if (!/^[0-9A-Za-z_\-|*]{6,32}$/.test(no))
      throw new ApiError(400, 'PARAM_ERROR', '输入源"/body/out_trade_no"映射到值字段"商户订单号"字符串规则校验失败');
    if (typeof b.description !== 'string' || !b.description)
      throw new ApiError(400, 'PARAM_ERROR', '缺少参数 description');
    if (typeof b.notify_url !== 'string' || !/^https:\/\//.test(b.notify_url))
      throw new ApiError(400, 'PARAM_ERROR', 'notify_url 必须为 https 地址');
    const amount = b.amount as { total?: unknown; currency?: unknown } | undefined;
    if (!amount || !Number.isInteger(amount.total) || (amount.total as number) < 1)
      throw new ApiError(400, 'PARAM_ERROR', 'amount.total 必须为正整数(分)');
    if ((amount.currency ?? 'CNY') !== 'CNY') throw new ApiError(400, 'PARAM_ERROR', '境内商户仅支持人民币');
    const openid = tradeType === 'MWEB' ? '' : (b.payer as { openid?: unknown } | undefined)?.openid;
    if (typeof openid !== 'string' || (tradeType === 'JSAPI' && !openid))
      throw new ApiError(400, 'PARAM_ERROR', '缺少参数 payer.openid');
    const key = `${m.mchId}|${no}`;
    const prior = this.txns.get(key);
    if (prior) {
      if (prior.trade_state === 'CLOSED') throw new ApiError(400, 'ORDER_CLOSED', '订单已关闭');
      if (prior.trade_state === 'SUCCESS' || prior.trade_state === 'REFUND')
        throw new ApiError(400, 'ORDER_PAID', '订单已支付');
      if (prior.request !== raw) throw new ApiError(403, 'OUT_TRADE_NO_USED', '商户订单号重复');
      return { prepay_id: prior.prepay_id };
    }
    const t: Txn = {
      appid: m.appId,
      mchid: m.mchId,
      out_trade_no: no,
      trade_type: tradeType,
      trade_state: 'NOTPAY',
      trade_state_desc: '订单未支付',
      description: b.description,
      notify_url: b.notify_url,
      amount: { total: amount.total as number, currency: 'CNY' },
      payer: { openid },
      prepay_id: `wx${this.id(32)}`,
      request: raw,
      refunded: 0,
    };
    this.txns.set(key, t);
    return { prepay_id: t.prepay_id };
  }

  private txn(m: Merchant, no: string) {
    const t = this.txns.get(`${m.mchId}|${no}`);
    if (!t) throw new ApiError(404, 'ORDER_NOT_EXIST', '订单不存在');
    return t;
  }

  private view(t: Txn) {
    const paid = t.trade_state === 'SUCCESS' || t.trade_state === 'REFUND';
    return {
      appid: t.appid,
      mchid: t.mchid,
      out_trade_no: t.out_trade_no,
      trade_type: t.trade_type,
      trade_state: t.trade_state,
      trade_state_desc: t.trade_state_desc,
      ...(t.transaction_id
        ? { transaction_id: t.transaction_id, bank_type: 'OTHERS', success_time: t.success_time }
        : {}),
      payer: { openid: t.payer.openid },
      amount: {
        total: t.amount.total,
        currency: 'CNY',
        ...(paid ? { payer_total: t.amount.total, payer_currency: 'CNY' } : {}),
      },
    };
  }

  // ---- refunds ----------------------------------------------------------------------------------------------------

  private refund(m: Merchant, b: Record<string, unknown>, raw: string) {
    const outRefundNo = String(b.out_refund_no ?? '');
    if (!/^[0-9A-Za-z_\-|*@]{1,64}$/.test(outRefundNo))
      throw new ApiError(400, 'PARAM_ERROR', 'out_refund_no 格式错误');
    const prior = this.refunds.get(`${m.mchId}|${outRefundNo}`);
    if (prior) {
      // The same out_refund_no refunds once; asking it again with other amounts is refused.
      if (prior.request !== raw)
        throw new ApiError(400, 'INVALID_REQUEST', '订单金额或退款金额与之前请求不一致，请核实后再试');
      return this.refundView(prior);
    }
    let t: Txn | undefined;
    if (typeof b.transaction_id === 'string') t = this.byTransactionId.get(b.transaction_id);
    else if (typeof b.out_trade_no === 'string') t = this.txns.get(`${m.mchId}|${b.out_trade_no}`);
    else throw new ApiError(400, 'PARAM_ERROR', 'transaction_id 和 out_trade_no 必须二选一');
    if (!t || t.mchid !== m.mchId || !t.transaction_id) throw new ApiError(404, 'RESOURCE_NOT_EXISTS', '订单不存在');
    const a = b.amount as { refund?: unknown; total?: unknown; currency?: unknown } | undefined;
    if (!a || !Number.isInteger(a.refund) || (a.refund as number) < 1 || !Number.isInteger(a.total))
      throw new ApiError(400, 'PARAM_ERROR', 'amount.refund 与 amount.total 必须为正整数(分)');
    if (a.currency !== 'CNY') throw new ApiError(400, 'PARAM_ERROR', 'amount.currency 仅支持 CNY');
    if (a.total !== t.amount.total) throw new ApiError(400, 'INVALID_REQUEST', '订单金额与原订单金额不一致');
    const left = t.amount.total - t.refunded;
    if ((a.refund as number) > left) throw new ApiError(400, 'INVALID_REQUEST', '申请退款金额超过订单可退金额');
    t.refunded += a.refund as number;
    t.trade_state = 'REFUND';
    t.trade_state_desc = '转入退款';
    const r: RefundRec = {
      refund_id: `50${this.id(27)}`,
      out_refund_no: outRefundNo,
      transaction_id: t.transaction_id,
      out_trade_no: t.out_trade_no,
      status: 'PROCESSING',
      create_time: iso(this.now()),
      amount: { total: t.amount.total, refund: a.refund as number, currency: 'CNY' },
      request: raw,
    };
    this.refunds.set(`${m.mchId}|${outRefundNo}`, r);
    return this.refundView(r);
  }

  private refundView(r: RefundRec) {
    return {
      refund_id: r.refund_id,
      out_refund_no: r.out_refund_no,
      transaction_id: r.transaction_id,
      out_trade_no: r.out_trade_no,
      channel: 'ORIGINAL',
      user_received_account: '支付用户零钱',
      create_time: r.create_time,
      status: r.status,
      funds_account: 'AVAILABLE',
      ...(r.success_time ? { success_time: r.success_time } : {}),
      amount: {
        total: r.amount.total,
        refund: r.amount.refund,
        payer_total: r.amount.total,
        payer_refund: r.amount.refund,
        settlement_refund: r.amount.refund,
        settlement_total: r.amount.total,
        discount_refund: 0,
        currency: 'CNY',
      },
    };
  }

  /** The bank returns the refund: PROCESSING → SUCCESS. */
  settleRefunds() {
    for (const r of this.refunds.values())
      if (r.status === 'PROCESSING') Object.assign(r, { status: 'SUCCESS', success_time: iso(this.now()) });
  }

  /** Refunds of a payment (by our out_trade_no, or a pay-score order's deduction). */
  refundsOf(outTradeNo: string) {
    return [...this.refunds.values()].filter((r) => r.out_trade_no === outTradeNo);
  }

  // ---- pay score --------------------------------------------------------------------------------------------------

  private createScore(m: Merchant, b: Record<string, unknown>, raw: string) {
    if (b.appid !== m.appId) throw new ApiError(400, 'APPID_MCHID_NOT_MATCH', 'appid和mch_id不匹配');
    if (b.service_id !== m.serviceId) throw new ApiError(403, 'NO_AUTH', '服务ID不存在或与商户号不匹配');
    const no = String(b.out_order_no ?? '');
    if (!/^[0-9A-Za-z_\-|*@]{1,32}$/.test(no)) throw new ApiError(400, 'PARAM_ERROR', 'out_order_no 格式错误');
    if (typeof b.service_introduction !== 'string' || !b.service_introduction || b.service_introduction.length > 20)
      throw new ApiError(400, 'PARAM_ERROR', 'service_introduction 长度 1-20');
    const risk = b.risk_fund as { name?: unknown; amount?: unknown; description?: unknown } | undefined;
    if (
      !risk ||
      !['DEPOSIT', 'ADVANCE', 'CASH_DEPOSIT', 'ESTIMATE_ORDER_COST'].includes(String(risk.name)) ||
      !Number.isInteger(risk.amount) ||
      (risk.amount as number) < 1
    ) {
      throw new ApiError(400, 'PARAM_ERROR', 'risk_fund 错误');
    }
    const range = b.time_range as { start_time?: unknown } | undefined;
    if (
      !range ||
      typeof range.start_time !== 'string' ||
      !(range.start_time === 'OnAccept' || /^\d{14}$/.test(range.start_time))
    )
      throw new ApiError(400, 'PARAM_ERROR', 'time_range.start_time 格式错误');
    if (b.need_user_confirm !== true && typeof b.openid !== 'string')
      throw new ApiError(400, 'PARAM_ERROR', '免确认模式需传入 openid');
    if (typeof b.notify_url !== 'string' || !/^https:\/\//.test(b.notify_url))
      throw new ApiError(400, 'PARAM_ERROR', 'notify_url 必须为 https 地址');
    const key = `${m.mchId}|${no}`;
    const prior = this.orders.get(key);
    if (prior) {
      if (prior.request !== raw) throw new ApiError(400, 'INVALID_REQUEST', '商户订单号重复');
      return this.scoreView(prior, true);
    }
    const o: ServiceOrder = {
      appid: m.appId,
      mchid: m.mchId,
      service_id: m.serviceId,
      out_order_no: no,
      service_introduction: b.service_introduction,
      state: 'CREATED',
      risk_fund: {
        name: String(risk.name),
        amount: risk.amount as number,
        ...(typeof risk.description === 'string' ? { description: risk.description } : {}),
      },
      time_range: { start_time: range.start_time },
      notify_url: b.notify_url,
      order_id: `1000000000${this.id(22)}`,
      package: randomBytes(24).toString('base64'),
      request: raw,
      ...(typeof b.openid === 'string' ? { openid: b.openid } : {}),
    };
    this.orders.set(key, o);
    return this.scoreView(o, true);
  }

  private order(m: Merchant, no: string) {
    const o = this.orders.get(`${m.mchId}|${no}`);
    if (!o) throw new ApiError(404, 'ORDER_NOT_EXIST', '订单不存在');
    return o;
  }

  private scoreView(o: ServiceOrder, withPackage = false) {
    return {
      appid: o.appid,
      mchid: o.mchid,
      service_id: o.service_id,
      out_order_no: o.out_order_no,
      service_introduction: o.service_introduction,
      state: o.state,
      ...(o.state_description ? { state_description: o.state_description } : {}),
      risk_fund: o.risk_fund,
      time_range: o.time_range,
      notify_url: o.notify_url,
      order_id: o.order_id,
      ...(o.openid ? { openid: o.openid } : {}),
      ...(o.total_amount === undefined
        ? {}
        : { total_amount: o.total_amount, need_collection: true, post_payments: o.post_payments }),
      ...(o.collection ? { collection: o.collection } : {}),
      ...(withPackage ? { package: o.package } : {}),
    };
  }

  private completeScore(o: ServiceOrder, b: Record<string, unknown>) {
    if (o.state !== 'DOING' || o.state_description === 'MCH_COMPLETE')
      throw new ApiError(400, 'INVALID_REQUEST', `订单状态 ${o.state} 不允许完结`);
    const posts = b.post_payments as
      { name?: unknown; amount?: unknown; description?: unknown; count?: unknown }[] | undefined;
    if (
      !Array.isArray(posts) ||
      posts.length === 0 ||
      posts.some((x) => typeof x.name !== 'string' || !Number.isInteger(x.amount) || (x.amount as number) < 0)
    ) {
      throw new ApiError(400, 'PARAM_ERROR', 'post_payments 错误');
    }
    const sum = posts.reduce(
      (s, x) => s + (x.amount as number) * (Number.isInteger(x.count) ? (x.count as number) : 1),
      0,
    );
    if (b.total_amount !== sum) throw new ApiError(400, 'PARAM_ERROR', 'total_amount 与 post_payments 金额之和不一致');
    // The completion may be more or less than the risk fund (WeChat: 完结金额可大于、小于或等于风险金额).
    const end = (b.time_range as { end_time?: unknown } | undefined)?.end_time;
    if (end !== undefined && !/^\d{14}$/.test(String(end)))
      throw new ApiError(400, 'PARAM_ERROR', 'time_range.end_time 格式错误');
    Object.assign(o, {
      state_description: 'MCH_COMPLETE',
      total_amount: sum,
      post_payments: posts,
      time_range: { ...o.time_range, ...(end ? { end_time: end } : {}) },
      collection: { state: 'USER_PAYING', total_amount: sum, paying_amount: sum, paid_amount: 0, details: [] },
    });
    const view = this.scoreView(o);
    if (this.autoDeduct) this.deduct(o.mchid, o.out_order_no);
    return view;
  }

  /** WeChat deducts a completed pay-score order at once (set false to leave it collecting). */
  autoDeduct = true;

  private cancelScore(o: ServiceOrder, b: Record<string, unknown>) {
    if (typeof b.reason !== 'string' || !b.reason || b.reason.length > 50)
      throw new ApiError(400, 'PARAM_ERROR', 'reason 长度 1-50');
    if (!(o.state === 'CREATED' || (o.state === 'DOING' && o.state_description !== 'MCH_COMPLETE')))
      throw new ApiError(400, 'INVALID_REQUEST', `订单状态 ${o.state} 不允许取消`);
    o.state = 'REVOKED';
    delete o.state_description;
    return {
      appid: o.appid,
      mchid: o.mchid,
      out_order_no: o.out_order_no,
      service_id: o.service_id,
      order_id: o.order_id,
    };
  }

  // ---- the customer and WeChat ------------------------------------------------------------------------------------

  /** The customer pays the JSAPI order in WeChat (or it fails: declined by the bank, 余额不足). */
  pay(mchId: string, outTradeNo: string, outcome: 'succeeds' | 'declined' | 'insufficient_funds' = 'succeeds') {
    const t = this.txns.get(`${mchId}|${outTradeNo}`);
    if (!t) throw new Error(`no order ${outTradeNo}`);
    if (t.trade_state !== 'NOTPAY' && t.trade_state !== 'PAYERROR')
      throw new Error(`order ${outTradeNo} is ${t.trade_state}`);
    if (outcome === 'succeeds') {
      t.trade_state = 'SUCCESS';
      t.trade_state_desc = '支付成功';
      t.transaction_id = `42${this.id(26)}`;
      t.success_time = iso(this.now());
      this.byTransactionId.set(t.transaction_id, t);
    } else {
      t.trade_state = 'PAYERROR';
      t.trade_state_desc = outcome === 'insufficient_funds' ? '支付失败，余额不足' : '支付失败，银行卡已被冻结';
    }
    return this.view(t);
  }

  /** The customer confirms the pay-score order in WeChat (the deposit is waived): CREATED → DOING. */
  confirmScore(mchId: string, outOrderNo: string, openid = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o') {
    const o = this.orders.get(`${mchId}|${outOrderNo}`);
    if (!o || o.state !== 'CREATED') throw new Error(`no CREATED order ${outOrderNo}`);
    Object.assign(o, { state: 'DOING', state_description: 'USER_CONFIRM', openid });
    return this.scoreView(o);
  }

  /** WeChat collects a completed pay-score order from the user: DOING/MCH_COMPLETE → DONE, a paid transaction. */
  deduct(mchId: string, outOrderNo: string) {
    const o = this.orders.get(`${mchId}|${outOrderNo}`);
    if (!o?.collection || o.state_description !== 'MCH_COMPLETE')
      throw new Error(`order ${outOrderNo} is not completed`);
    const amount = o.collection.paying_amount;
    if (amount > 0) {
      const t: Txn = {
        appid: o.appid,
        mchid: o.mchid,
        out_trade_no: `PS${this.id(20)}`,
        trade_type: 'PAYSCORE',
        trade_state: 'SUCCESS',
        trade_state_desc: '支付成功',
        description: o.service_introduction,
        notify_url: o.notify_url,
        amount: { total: amount, currency: 'CNY' },
        payer: { openid: o.openid ?? '' },
        prepay_id: '',
        transaction_id: `42${this.id(26)}`,
        success_time: iso(this.now()),
        request: '',
        refunded: 0,
      };
      this.byTransactionId.set(t.transaction_id!, t);
      o.collection.details.push({
        seq: o.collection.details.length + 1,
        amount,
        paid_type: 'NEWTON',
        paid_time: cstNow(this.now()),
        transaction_id: t.transaction_id!,
      });
    }
    Object.assign(o.collection, {
      state: 'USER_PAID',
      paying_amount: 0,
      paid_amount: o.collection.paid_amount + amount,
    });
    Object.assign(o, { state: 'DONE', state_description: 'USER_PAID' });
    return this.scoreView(o);
  }

  /** The customer never confirms: the order expires. */
  expireScore(mchId: string, outOrderNo: string) {
    const o = this.orders.get(`${mchId}|${outOrderNo}`);
    if (!o || o.state !== 'CREATED') throw new Error(`no CREATED order ${outOrderNo}`);
    o.state = 'EXPIRED';
    return this.scoreView(o);
  }

  /** The refunds a pay-score order's deductions had. */
  scoreRefunds(mchId: string, outOrderNo: string) {
    const o = this.orders.get(`${mchId}|${outOrderNo}`);
    const ids = new Set(o?.collection?.details.map((d) => d.transaction_id));
    return [...this.refunds.values()].filter((r) => ids.has(r.transaction_id));
  }

  // ---- notifications ----------------------------------------------------------------------------------------------

  /**
   * A notification delivery as WeChat Pay POSTs it: {id, create_time, resource_type, event_type, summary, resource:
   * {original_type, algorithm: AEAD_AES_256_GCM, ciphertext, associated_data, nonce}} with Wechatpay-* signature
   * headers. `signWith` signs with another key (a forger); `timestamp` backdates it.
   */
  notification(
    mchId: string,
    event:
      | { kind: 'transaction'; outTradeNo: string }
      | { kind: 'payscore'; outOrderNo: string; eventType: 'PAYSCORE.USER_CONFIRM' | 'PAYSCORE.USER_PAID' }
      | { kind: 'refund'; outRefundNo: string },
    opts: { id?: string; signWith?: KeyObject; timestamp?: number; apiV3Key?: string } = {},
  ) {
    const m = this.merchants.get(mchId)!;
    let eventType: string;
    let resource: unknown;
    let originalType: string;
    let summary: string;
    if (event.kind === 'transaction') {
      const t = this.txns.get(`${mchId}|${event.outTradeNo}`)!;
      eventType = t.trade_state === 'SUCCESS' ? 'TRANSACTION.SUCCESS' : 'TRANSACTION.' + t.trade_state;
      resource = { ...this.view(t), attach: '' };
      originalType = 'transaction';
      summary = '支付成功';
    } else if (event.kind === 'payscore') {
      const o = this.orders.get(`${mchId}|${event.outOrderNo}`)!;
      eventType = event.eventType;
      resource = this.scoreView(o);
      originalType = 'payscore';
      summary =
        event.eventType === 'PAYSCORE.USER_PAID' ? '微信支付分服务订单支付成功' : '微信支付分服务订单用户已确认';
    } else {
      const r = this.refunds.get(`${mchId}|${event.outRefundNo}`)!;
      eventType = `REFUND.${r.status === 'PROCESSING' ? 'SUCCESS' : r.status}`;
      resource = {
        mchid: mchId,
        out_trade_no: r.out_trade_no,
        transaction_id: r.transaction_id,
        out_refund_no: r.out_refund_no,
        refund_id: r.refund_id,
        refund_status: 'SUCCESS',
        amount: r.amount,
      };
      originalType = 'refund';
      summary = '退款成功';
    }
    const nonce = randomBytes(6).toString('hex'); // 12 characters, as WeChat's
    const aad = originalType;
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(opts.apiV3Key ?? m.apiV3Key), Buffer.from(nonce));
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([
      cipher.update(JSON.stringify(resource), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]).toString('base64');
    const rawBody = JSON.stringify({
      id: opts.id ?? crypto.randomUUID(),
      create_time: iso(this.now()),
      resource_type: 'encrypt-resource',
      event_type: eventType,
      summary,
      resource: {
        original_type: originalType,
        algorithm: 'AEAD_AES_256_GCM',
        ciphertext: ct,
        associated_data: aad,
        nonce,
      },
    });
    return this.deliver(rawBody, opts);
  }

  /** The same notification delivered again (WeChat retries until acknowledged): same body, fresh signature. */
  redeliver(rawBody: string) {
    return this.deliver(rawBody, {});
  }

  private deliver(rawBody: string, opts: { signWith?: KeyObject; timestamp?: number }) {
    const headers = this.signatureHeaders(rawBody, opts.signWith, opts.timestamp);
    const lower: Record<string, string> = { 'content-type': 'application/json' };
    for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
    return { headers: lower, rawBody, query: {} as Record<string, string> };
  }
}

const cstNow = (d: Date) => new Date(d.getTime() + 8 * 3_600_000).toISOString().slice(0, 19).replace(/[-T:]/g, '');

/** The v2 HMAC-SHA256 signature check of a wxpayScoreUse queryString (what the WeChat client does). */
export function checkScoreQuery(queryString: string, apiV2Key: string): boolean {
  const q = new URLSearchParams(queryString);
  const fields = [...q.entries()].filter(([k, v]) => k !== 'sign' && v !== '').sort(([a], [b]) => (a < b ? -1 : 1));
  const s = fields.map(([k, v]) => `${k}=${v}`).join('&') + `&key=${apiV2Key}`;
  return createHmac('sha256', apiV2Key).update(s).digest('hex').toUpperCase() === q.get('sign');
}
