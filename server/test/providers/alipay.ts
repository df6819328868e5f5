// An Alipay Open Platform gateway test server (test tree only, never shipped): the part of OpenAPI 2.0
// (gateway.do) the alipay adapter uses, modelled from Alipay's documentation —
//   requests   one form POST per call: app_id, method, format=JSON, charset, sign_type=RSA2, timestamp
//              ("yyyy-MM-dd HH:mm:ss", China time, refused when more than 15 minutes off), version=1.0, notify_url,
//              biz_content; `sign` = RSA-SHA256 (the app's key) over the sorted non-empty parameters except sign.
//   answers    {"<method>_response": {code, msg, sub_code?, sub_msg?, ...}, "sign": "..."} — signed with the Alipay
//              key over the response object's text exactly as written (this server escapes `/` as `\/`, as the
//              gateway does, so a verifier that re-serialises fails); an unknown app_id gets an unsigned
//              {"error_response": {code 40002, sub_code isv.invalid-app-id}}; a bad signature → 40002
//              isv.invalid-signature; a missing parameter → 40001; business failures → 40004 with ACQ.* codes.
//   trades     alipay.trade.create (JSAPI_PAY: buyer_id / buyer_open_id; the same out_trade_no with the same
//              content answers the same trade, else ACQ.CONTEXT_INCONSISTENT; paid → ACQ.TRADE_HAS_SUCCESS; closed →
//              ACQ.TRADE_HAS_CLOSE) → WAIT_BUYER_PAY → TRADE_SUCCESS (customer pays) | TRADE_CLOSED (timeout, or a
//              full refund); alipay.trade.query (ACQ.TRADE_NOT_EXIST); alipay.trade.refund (out_request_no: the same
//              number answers the first result with fund_change N; more than is left → ACQ.REFUND_AMT_NOT_EQUAL_TOTAL;
//              an unpaid trade → ACQ.TRADE_STATUS_ERROR); alipay.trade.close (an unpaid trade → TRADE_CLOSED; a paid
//              one → ACQ.TRADE_STATUS_ERROR).
//   WAP        alipay.trade.wap.pay is a page: the phone's browser opens the gateway with the signed parameters
//              (QUICK_WAP_WAY, return_url); openWap() is that visit (signature checked) and makes the trade, which
//              the buyer then pays as any other.
//   holds      the client's alipay.fund.auth.order.app.freeze order string (signature checked as the gateway
//              does) → an authorisation order (INIT → AUTHORIZED, operation SUCCESS; insufficient balance leaves
//              nothing frozen); alipay.fund.auth.operation.detail.query; alipay.trade.pay with auth_no
//              (PRE_AUTH_ONLINE, ≤ rest; auth_confirm_mode COMPLETE unfreezes the rest → FINISH);
//              alipay.fund.auth.order.unfreeze (≤ rest); alipay.fund.auth.operation.cancel (before a freeze).
//   transfers  alipay.fund.trans.uni.transfer (TRANS_ACCOUNT_NO_PWD / DIRECT_TRANSFER; certificate mode: app_cert_sn
//              and alipay_root_cert_sn required; payee by ALIPAY_LOGON_ID + name or ALIPAY_USER_ID; PAYEE_NOT_EXIST,
//              PAYEE_USER_INFO_ERROR, PAYER_BALANCE_NOT_ENOUGH; the same out_biz_no answers the same order).
//   notify     asynchronous notifications (form-encoded, RSA2 over the sorted parameters except sign and
//              sign_type, with the Alipay key), kept in `notifications`; redelivered with the same notify_id.
// The customer's side (the Alipay app) is simulated by pay(), freeze(), expire().
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSign, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { AlipayBills } from './alipay-bills.ts';

const pem = () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
};

/** A fresh RSA key pair in PEM (the app's key pair, as the Open Platform's key tool makes it). */
export const makeKeys = pem;

const content = (p: Record<string, string>, exclude: string[]) =>
  Object.keys(p)
    .filter((k) => !exclude.includes(k) && p[k] !== '')
    .sort()
    .map((k) => `${k}=${p[k]}`)
    .join('&');
const sign = (text: string, key: string) => createSign('RSA-SHA256').update(text, 'utf8').sign(key, 'base64');
const verify = (text: string, sig: string, key: string) => {
  try {
    return createVerify('RSA-SHA256').update(text, 'utf8').verify(key, sig, 'base64');
  } catch {
    return false;
  }
};
const fen = (yuan: unknown): number | null => {
  const s = typeof yuan === 'number' ? yuan.toFixed(2) : String(yuan ?? '');
  if (!/^\d+(\.\d{1,2})?$/.test(s)) return null;
  const [w, f = ''] = s.split('.');
  return Number(w) * 100 + Number((f + '00').slice(0, 2));
};
const yuan = (n: number) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`;
const chinaTime = (ms: number) => new Date(ms + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

class Fail extends Error {
  constructor(
    readonly code: string,
    readonly msg: string,
    readonly subCode?: string,
    readonly subMsg?: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(subMsg ?? msg);
  }
}
const business = (subCode: string, subMsg: string, extra: Record<string, string> = {}) =>
  new Fail('40004', 'Business Failed', subCode, subMsg, extra);
const invalid = (subCode: string, subMsg: string) => new Fail('40002', 'Invalid Arguments', subCode, subMsg);
const missing = (name: string) =>
  new Fail('40001', 'Missing Required Arguments', `isv.missing-${name.replaceAll('_', '-')}`, `缺少必选参数 ${name}`);

export interface Buyer {
  userId: string;
  openId: string;
  logonId: string;
  name: string;
  /** Balance in fen. */
  balance: number;
  /** Account restricted by Alipay (trade creation refused: ACQ.BUYER_ENABLE_STATUS_FORBID). */
  forbidden?: boolean;
}

interface Trade {
  tradeNo: string;
  outTradeNo: string;
  status: 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED' | 'TRADE_FINISHED';
  total: number;
  refunded: number;
  subject: string;
  buyerId?: string;
  buyerOpenId?: string;
  notifyUrl?: string;
  created: number;
  paidAt?: number;
  authNo?: string;
  refunds: Map<string, { amount: number; answer: Record<string, string> }>;
  bizHash: string;
}

interface AuthOrder {
  authNo: string;
  outOrderNo: string;
  outRequestNo: string;
  operationId: string;
  title: string;
  /** INIT while the operation was cancelled/not frozen, AUTHORIZED while frozen, FINISH once all settled, CLOSED when cancelled. */
  orderStatus: 'INIT' | 'AUTHORIZED' | 'FINISH' | 'CLOSED';
  /** The freeze operation's status. */
  status: 'INIT' | 'SUCCESS' | 'CLOSED';
  frozen: number;
  rest: number;
  paid: number;
  unfrozen: number;
  payer: Buyer;
  notifyUrl?: string;
  unfreezes: Map<string, number>;
}

export class FakeAlipay {
  private server!: Server;
  port = 0;
  /** The Alipay platform key pair: answers and notifications are signed with its private key. */
  readonly alipayKeys = pem();
  /** Apps: APPID → the app public key uploaded to the Open Platform (+ certificate SNs in certificate mode). */
  readonly apps = new Map<string, { publicKey: string; appCertSn?: string; alipayRootCertSn?: string }>();
  readonly buyers = new Map<string, Buyer>();
  readonly payees = new Map<string, { userId: string; logonId: string; name: string }>();
  /** The merchant account's balance for transfers (fen). */
  merchantBalance = 1_000_000_00;
  readonly trades = new Map<string, Trade>();
  readonly auths = new Map<string, AuthOrder>();
  readonly transfers = new Map<
    string,
    { orderId: string; amount: number; payee: string; answer: Record<string, string> }
  >();
  /** Every notification sent: the form body and where it went. */
  readonly notifications: { url?: string; body: string; notifyId: string }[] = [];
  /** The trade bills (providers/alipay-bills.ts). */
  readonly bills = new AlipayBills(() => ({
    trades: [...this.trades.values()],
    now: this.now(),
    base: `http://127.0.0.1:${this.port}`,
  }));
  /** Every gateway request's parsed parameters. */
  readonly requests: Record<string, string>[] = [];
  /** Process the next N requests but cut the connection before answering. */
  dropNext = 0;
  /** The next answer is altered after signing (a forger on the path): its text goes through this function. */
  tamperNext: ((text: string) => string) | null = null;
  /** The next answer is sent without its signature. */
  unsignedNext = 0;
  /** Refuse timestamps more than 15 minutes away from this clock. */
  now = () => Date.now();
  /** A trade left unpaid this long is closed by expire(). */
  timeoutMs = 15 * 60_000;
  private seq = 0;

  constructor() {
    this.addBuyer({
      userId: '2088102146225135',
      openId: '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5',
      logonId: 'buyer@sandbox.com',
      name: '沙箱买家',
      balance: 1_000_000_00,
    });
    this.addBuyer({
      userId: '2088102146220002',
      openId: '074poorbuyeropenid0002',
      logonId: 'poor@sandbox.com',
      name: '余额不足',
      balance: 1_00,
    });
    this.addBuyer({
      userId: '2088102146220003',
      openId: '074forbiddenbuyer0003',
      logonId: 'forbidden@sandbox.com',
      name: '受限买家',
      balance: 1_000_00,
      forbidden: true,
    });
    this.payees.set('payee@sandbox.com', {
      userId: '2088102146229999',
      logonId: 'payee@sandbox.com',
      name: '沙箱收款人',
    });
  }

  addBuyer(b: Buyer) {
    this.buyers.set(b.userId, b);
  }

  /** Registers an app (its APPID and the app public key uploaded for it). */
  addApp(appId: string, publicKey: string, cert?: { appCertSn: string; alipayRootCertSn: string }) {
    this.apps.set(appId, { publicKey, ...cert });
    return this;
  }

  async start() {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  get gateway() {
    return `http://127.0.0.1:${this.port}/gateway.do`;
  }

  private id(prefix: string, len: number) {
    const n = `${++this.seq}${Date.now()}`;
    return (prefix + n + '0'.repeat(len)).slice(0, len);
  }

  /** The Alipay side of a response: the object's text as written (with `\/`) and its signature. */
  private answerText(key: string, answer: Record<string, unknown>, signed: boolean) {
    const text = JSON.stringify(answer).replaceAll('/', '\\/');
    return signed ? `{"${key}":${text},"sign":"${sign(text, this.alipayKeys.privateKey)}"}` : `{"${key}":${text}}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/bill/download') {
      // The bill's ZIP; an expired link gets Alipay's page saying so.
      const zip = this.bills.download(url.searchParams);
      res.writeHead(200, { 'content-type': zip ? 'application/oct-stream' : 'text/html;charset=utf-8' });
      return void res.end(zip ?? '下载超时，请重新下载');
    }
    const p: Record<string, string> = {};
    for (const [k, v] of url.searchParams) p[k] = v;
    for (const [k, v] of new URLSearchParams(raw)) p[k] = v;
    this.requests.push(p);
    const send = (text: string) => {
      let body = text;
      if (this.tamperNext) {
        body = this.tamperNext(body);
        this.tamperNext = null;
      }
      if (this.unsignedNext > 0) {
        this.unsignedNext--;
        body = body.replace(/,"sign":"[^"]*"\}$/, '}');
      }
      if (this.dropNext > 0) {
        this.dropNext--;
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html;charset=utf-8' });
      res.end(body);
    };
    if (req.method !== 'POST' && req.method !== 'GET') return send('');
    const method = p.method ?? '';
    const key = method ? `${method.replaceAll('.', '_')}_response` : 'error_response';
    const app = this.apps.get(p.app_id ?? '');
    if (!app) {
      return send(
        this.answerText(
          'error_response',
          { code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.invalid-app-id', sub_msg: '无效的AppID参数' },
          false,
        ),
      );
    }
    try {
      this.checkCommon(p, app.publicKey);
      const answer = this.route(method, p, app);
      send(this.answerText(key, { code: '10000', msg: 'Success', ...answer }, true));
    } catch (err) {
      if (!(err instanceof Fail)) throw err;
      const body = {
        code: err.code,
        msg: err.msg,
        ...(err.subCode ? { sub_code: err.subCode, sub_msg: err.subMsg } : {}),
        ...err.extra,
      };
      send(this.answerText(key, body, true));
    }
  }

  private checkCommon(p: Record<string, string>, publicKey: string) {
    for (const k of ['method', 'charset', 'sign_type', 'sign', 'timestamp', 'version']) if (!p[k]) throw missing(k);
    if (p.sign_type !== 'RSA2' && p.sign_type !== 'RSA') throw invalid('isv.invalid-signature-type', '无效的签名类型');
    if (p.version !== '1.0') throw invalid('isv.invalid-version', '版本号错误');
    if (p.format && p.format.toUpperCase() !== 'JSON') throw invalid('isv.invalid-format', '无效的数据格式');
    if (!verify(content(p, ['sign']), p.sign!, publicKey)) {
      throw invalid(
        'isv.invalid-signature',
        `验签出错，建议检查签名字符串或签名私钥与应用公钥是否匹配，网关生成的验签字符串为：${content(p, ['sign'])}`,
      );
    }
    const t = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(p.timestamp!);
    const ms = t ? Date.UTC(+t[1]!, +t[2]! - 1, +t[3]!, +t[4]!, +t[5]!, +t[6]!) - 8 * 3600_000 : NaN;
    if (!Number.isFinite(ms) || Math.abs(ms - this.now()) > 15 * 60_000)
      throw invalid('isv.invalid-timestamp', '非法的时间戳参数');
  }

  private biz(p: Record<string, string>): Record<string, unknown> {
    if (!p.biz_content) throw missing('biz_content');
    try {
      return JSON.parse(p.biz_content) as Record<string, unknown>;
    } catch {
      throw invalid('isv.invalid-biz-content', 'biz_content 不是合法的JSON');
    }
  }

  private route(
    method: string,
    p: Record<string, string>,
    app: { appCertSn?: string; alipayRootCertSn?: string },
  ): Record<string, unknown> {
    const b = this.biz(p);
    const str = (k: string) =>
      typeof b[k] === 'string' ? (b[k] as string) : b[k] === undefined ? undefined : String(b[k]);
    const need = (k: string) => {
      const v = str(k);
      if (!v) throw missing(k);
      return v;
    };
    switch (method) {
      case 'alipay.trade.create': {
        const outTradeNo = need('out_trade_no');
        const total = fen(need('total_amount'));
        if (total === null || total < 1) throw business('ACQ.INVALID_PARAMETER', '参数无效 total_amount');
        const subject = need('subject');
        const buyerId = str('buyer_id');
        const buyerOpenId = str('buyer_open_id');
        if (!buyerId && !buyerOpenId)
          throw business('ACQ.INVALID_PARAMETER', '参数无效 buyer_id 和 buyer_open_id 不能同时为空');
        const buyer = [...this.buyers.values()].find((x) => x.userId === buyerId || x.openId === buyerOpenId);
        if (!buyer) throw business('ACQ.INVALID_PARAMETER', '买家不存在');
        if (buyer.forbidden) throw business('ACQ.BUYER_ENABLE_STATUS_FORBID', '买家状态非法');
        const bizHash = `${total}|${subject}|${buyer.userId}`;
        const prior = [...this.trades.values()].find((t) => t.outTradeNo === outTradeNo);
        if (prior) {
          if (prior.status === 'TRADE_SUCCESS' || prior.status === 'TRADE_FINISHED')
            throw business('ACQ.TRADE_HAS_SUCCESS', '交易已被支付');
          if (prior.status === 'TRADE_CLOSED') throw business('ACQ.TRADE_HAS_CLOSE', '交易已经关闭');
          if (prior.bizHash !== bizHash) throw business('ACQ.CONTEXT_INCONSISTENT', '交易信息被篡改');
          return { out_trade_no: outTradeNo, trade_no: prior.tradeNo };
        }
        const trade: Trade = {
          tradeNo: this.id(`${chinaTime(this.now()).slice(0, 10).replaceAll('-', '')}22`, 28),
          outTradeNo,
          status: 'WAIT_BUYER_PAY',
          total,
          refunded: 0,
          subject,
          buyerId: buyer.userId,
          buyerOpenId: buyer.openId,
          notifyUrl: p.notify_url,
          created: this.now(),
          refunds: new Map(),
          bizHash,
        };
        this.trades.set(trade.tradeNo, trade);
        return { out_trade_no: outTradeNo, trade_no: trade.tradeNo };
      }
      case 'alipay.data.dataservice.bill.downloadurl.query': {
        const r = this.bills.query(b);
        if ('fail' in r) throw business(...r.fail);
        return { bill_download_url: r.url };
      }
      case 'alipay.trade.close': {
        const t = this.findTrade(str('trade_no'), str('out_trade_no'));
        if (t.status !== 'WAIT_BUYER_PAY') throw business('ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
        t.status = 'TRADE_CLOSED';
        return { trade_no: t.tradeNo, out_trade_no: t.outTradeNo };
      }
      case 'alipay.trade.query': {
        const t = this.findTrade(str('trade_no'), str('out_trade_no'));
        return {
          trade_no: t.tradeNo,
          out_trade_no: t.outTradeNo,
          trade_status: t.status,
          total_amount: yuan(t.total),
          buyer_user_id: t.buyerId,
          buyer_open_id: t.buyerOpenId,
          ...(t.paidAt ? { send_pay_date: chinaTime(t.paidAt), receipt_amount: yuan(t.total) } : {}),
        };
      }
      case 'alipay.trade.refund': {
        const t = this.findTrade(str('trade_no'), str('out_trade_no'));
        const amount = fen(need('refund_amount'));
        if (amount === null || amount < 1) throw business('ACQ.INVALID_PARAMETER', '参数无效 refund_amount');
        const reqNo = str('out_request_no') ?? t.outTradeNo;
        const done = t.refunds.get(reqNo);
        if (done) return { ...done.answer, fund_change: 'N' };
        if (t.status !== 'TRADE_SUCCESS' && !(t.status === 'TRADE_CLOSED' && t.paidAt))
          throw business('ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
        if (amount > t.total - t.refunded) {
          throw business('ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', '退款金额超限', {
            out_trade_no: t.outTradeNo,
            refund_fee: yuan(t.refunded),
            send_back_fee: '0.00',
          });
        }
        t.refunded += amount;
        if (t.refunded === t.total) t.status = 'TRADE_CLOSED';
        const answer = {
          trade_no: t.tradeNo,
          out_trade_no: t.outTradeNo,
          buyer_logon_id: 'buy***@sandbox.com',
          fund_change: 'Y',
          refund_fee: yuan(t.refunded),
          send_back_fee: yuan(amount),
          gmt_refund_pay: chinaTime(this.now()),
        };
        t.refunds.set(reqNo, { amount, answer });
        return answer;
      }
      case 'alipay.trade.pay': {
        const outTradeNo = need('out_trade_no');
        const total = fen(need('total_amount'));
        need('subject');
        const authNo = str('auth_no');
        if (str('product_code') !== 'PRE_AUTH_ONLINE' || !authNo)
          throw business('ACQ.INVALID_PARAMETER', '参数无效 (this server models only the pre-authorisation payment)');
        if (total === null || total < 1) throw business('ACQ.INVALID_PARAMETER', '参数无效 total_amount');
        const prior = [...this.trades.values()].find((t) => t.outTradeNo === outTradeNo);
        if (prior)
          throw business(
            prior.status === 'TRADE_CLOSED' ? 'ACQ.TRADE_HAS_CLOSE' : 'ACQ.TRADE_HAS_SUCCESS',
            '交易已被支付',
          );
        const auth = [...this.auths.values()].find((a) => a.authNo === authNo);
        if (!auth || auth.status === 'INIT') throw business('ACQ.AUTH_NO_ERROR', '预授权号错误或状态不对');
        if (auth.orderStatus === 'FINISH') throw business('ACQ.AUTH_ORDER_HAS_FINISHED', '预授权订单已经完结');
        if (auth.orderStatus === 'CLOSED') throw business('ACQ.AUTH_ORDER_HAS_CLOSED', '预授权订单已关闭');
        const buyer = str('buyer_id') ?? str('buyer_open_id');
        if (buyer && buyer !== auth.payer.userId && buyer !== auth.payer.openId)
          throw business('ACQ.TRADE_BUYER_NOT_MATCH', '交易买家不匹配');
        if (total > auth.rest) throw business('ACQ.AUTH_AMOUNT_NOT_ENOUGH', '授权金额不足');
        auth.rest -= total;
        auth.paid += total;
        if (str('auth_confirm_mode') === 'COMPLETE') {
          auth.unfrozen += auth.rest;
          auth.rest = 0;
        }
        if (auth.rest === 0) auth.orderStatus = 'FINISH';
        const trade: Trade = {
          tradeNo: this.id(`${chinaTime(this.now()).slice(0, 10).replaceAll('-', '')}22`, 28),
          outTradeNo,
          status: 'TRADE_SUCCESS',
          total,
          refunded: 0,
          subject: need('subject'),
          buyerId: auth.payer.userId,
          buyerOpenId: auth.payer.openId,
          notifyUrl: p.notify_url,
          created: this.now(),
          paidAt: this.now(),
          authNo,
          refunds: new Map(),
          bizHash: '',
        };
        this.trades.set(trade.tradeNo, trade);
        this.tradeNotify(trade);
        return {
          trade_no: trade.tradeNo,
          out_trade_no: outTradeNo,
          total_amount: yuan(total),
          receipt_amount: yuan(total),
          gmt_payment: chinaTime(this.now()),
          buyer_user_id: auth.payer.userId,
        };
      }
      case 'alipay.fund.auth.operation.detail.query': {
        const a = this.findAuth(str('auth_no'), str('out_order_no'));
        const op = str('out_request_no') ?? str('operation_id');
        if (op && op !== a.outRequestNo && op !== a.operationId)
          throw business('AUTH_OPERATION_NOT_EXIST', '支付宝资金操作流水不存在');
        return {
          auth_no: a.authNo,
          out_order_no: a.outOrderNo,
          order_status: a.orderStatus,
          total_freeze_amount: yuan(a.frozen),
          rest_amount: yuan(a.rest),
          total_pay_amount: yuan(a.paid),
          order_title: a.title,
          payer_logon_id: a.payer.logonId,
          payer_user_id: a.payer.userId,
          operation_id: a.operationId,
          out_request_no: a.outRequestNo,
          amount: yuan(a.frozen),
          operation_type: 'FREEZE',
          status: a.status,
          gmt_create: chinaTime(this.now()),
          gmt_trans: chinaTime(this.now()),
        };
      }
      case 'alipay.fund.auth.order.unfreeze': {
        const authNo = need('auth_no');
        const reqNo = need('out_request_no');
        const amount = fen(need('amount'));
        need('remark');
        const a = [...this.auths.values()].find((x) => x.authNo === authNo);
        if (!a) throw business('AUTH_ORDER_NOT_EXIST', '授权单不存在');
        const answer = () => ({
          auth_no: a.authNo,
          out_order_no: a.outOrderNo,
          operation_id: this.id('2018', 20),
          out_request_no: reqNo,
          amount: yuan(a.unfreezes.get(reqNo) ?? 0),
          status: 'SUCCESS',
          gmt_trans: chinaTime(this.now()),
        });
        if (a.unfreezes.has(reqNo)) return answer();
        if (a.orderStatus === 'FINISH') throw business('ORDER_ALREADY_FINISH', '授权订单已经完结，无法再进行资金操作');
        if (a.orderStatus === 'CLOSED') throw business('ORDER_ALREADY_CLOSED', '授权订单已经关闭，无法再进行资金操作');
        if (amount === null || amount < 1 || amount > a.rest)
          throw business('REQUEST_AMOUNT_EXCEED', '请求解冻金额超限');
        a.rest -= amount;
        a.unfrozen += amount;
        a.unfreezes.set(reqNo, amount);
        if (a.rest === 0) a.orderStatus = a.paid > 0 ? 'FINISH' : 'CLOSED';
        return answer();
      }
      case 'alipay.fund.auth.operation.cancel': {
        const outOrderNo = str('out_order_no');
        need('remark');
        const a = outOrderNo ? this.auths.get(outOrderNo) : undefined;
        if (a && a.status === 'SUCCESS') {
          // A cancel after a freeze unfreezes it (Alipay allows this within its window).
          a.unfrozen += a.rest;
          a.rest = 0;
          a.orderStatus = 'CLOSED';
          a.status = 'CLOSED';
        } else if (outOrderNo) {
          this.cancelled.add(outOrderNo);
        }
        return { out_order_no: outOrderNo, out_request_no: str('out_request_no'), action: a ? 'unfreeze' : 'close' };
      }
      case 'alipay.fund.trans.uni.transfer': {
        if (!app.appCertSn || p.app_cert_sn !== app.appCertSn || p.alipay_root_cert_sn !== app.alipayRootCertSn) {
          throw invalid('isv.invalid-app-cert-sn', '该接口仅支持公钥证书方式调用，应用公钥证书序列号无效');
        }
        const outBizNo = need('out_biz_no');
        const amount = fen(need('trans_amount'));
        if (str('product_code') !== 'TRANS_ACCOUNT_NO_PWD' || str('biz_scene') !== 'DIRECT_TRANSFER')
          throw business('INVALID_PARAMETER', '参数有误 product_code/biz_scene');
        need('order_title');
        const payee = b.payee_info as { identity?: string; identity_type?: string; name?: string } | undefined;
        if (!payee?.identity || !payee.identity_type) throw missing('payee_info');
        const prior = this.transfers.get(outBizNo);
        if (prior) return prior.answer;
        if (amount === null || amount < 10) throw business('EXCEED_LIMIT_SM_MIN_AMOUNT', '单笔最低转账金额0.1元');
        const who =
          payee.identity_type === 'ALIPAY_USER_ID'
            ? [...this.payees.values()].find((x) => x.userId === payee.identity)
            : this.payees.get(payee.identity);
        if (!who) throw business('PAYEE_NOT_EXIST', '收款账号不存在或姓名有误');
        if (payee.identity_type === 'ALIPAY_LOGON_ID' && payee.name !== who.name)
          throw business('PAYEE_USER_INFO_ERROR', '支付宝账号和姓名不匹配');
        if (amount > this.merchantBalance) throw business('PAYER_BALANCE_NOT_ENOUGH', '付款方余额不足');
        this.merchantBalance -= amount;
        const answer = {
          out_biz_no: outBizNo,
          order_id: this.id('2019', 32),
          pay_fund_order_id: this.id('2019', 32),
          status: 'SUCCESS',
          trans_date: chinaTime(this.now()),
        };
        this.transfers.set(outBizNo, { orderId: answer.order_id, amount, payee: who.userId, answer });
        return answer;
      }
      default:
        throw invalid('isv.invalid-method', '不存在的方法名');
    }
  }

  private readonly cancelled = new Set<string>();

  private findTrade(tradeNo?: string, outTradeNo?: string): Trade {
    if (!tradeNo && !outTradeNo) throw business('ACQ.INVALID_PARAMETER', 'trade_no 和 out_trade_no 不能同时为空');
    const t = tradeNo ? this.trades.get(tradeNo) : [...this.trades.values()].find((x) => x.outTradeNo === outTradeNo);
    if (!t) throw business('ACQ.TRADE_NOT_EXIST', '交易不存在');
    return t;
  }

  private findAuth(authNo?: string, outOrderNo?: string): AuthOrder {
    const a = authNo
      ? [...this.auths.values()].find((x) => x.authNo === authNo)
      : outOrderNo
        ? this.auths.get(outOrderNo)
        : undefined;
    if (!a) throw business('AUTH_ORDER_NOT_EXIST', '授权单不存在');
    return a;
  }

  // ---- the customer's side ----

  /**
   * The customer pays the trade in the Alipay app (my.tradePay({tradeNO})). Answers the client's resultCode:
   * 9000 paid, 6001 the customer cancelled, 4000 failed (e.g. the balance is too low: the trade stays unpaid).
   */
  pay(tradeNo: string, opts: { cancel?: boolean } = {}): '9000' | '6001' | '4000' {
    const t = this.trades.get(tradeNo);
    if (!t || t.status !== 'WAIT_BUYER_PAY') return '4000';
    if (opts.cancel) return '6001';
    const buyer = this.buyers.get(t.buyerId ?? '');
    if (!buyer || buyer.balance < t.total) return '4000';
    buyer.balance -= t.total;
    t.status = 'TRADE_SUCCESS';
    t.paidAt = this.now();
    this.tradeNotify(t);
    return '9000';
  }

  /**
   * The phone's browser opens a WAP payment page (GET gateway?<signed alipay.trade.wap.pay parameters>) and the
   * buyer signs in: the trade is made (WAIT_BUYER_PAY). Answers its trade_no, or null when the gateway refuses the
   * page (bad signature, not QUICK_WAP_WAY, no return_url).
   */
  openWap(url: string, buyerUserId = '2088102146225135'): string | null {
    const p: Record<string, string> = {};
    for (const [k, v] of new URL(url).searchParams) p[k] = v;
    const app = this.apps.get(p.app_id ?? '');
    if (
      !app ||
      p.method !== 'alipay.trade.wap.pay' ||
      !p.sign ||
      !p.return_url ||
      !verify(content(p, ['sign']), p.sign, app.publicKey)
    )
      return null;
    const b = JSON.parse(p.biz_content ?? '{}') as Record<string, string>;
    const total = fen(b.total_amount ?? '');
    const buyer = this.buyers.get(buyerUserId);
    if (b.product_code !== 'QUICK_WAP_WAY' || !b.out_trade_no || !b.subject || total === null || total < 1 || !buyer)
      return null;
    const prior = [...this.trades.values()].find((t) => t.outTradeNo === b.out_trade_no);
    if (prior) return prior.tradeNo;
    const trade: Trade = {
      tradeNo: this.id(`${chinaTime(this.now()).slice(0, 10).replaceAll('-', '')}22`, 28),
      outTradeNo: b.out_trade_no,
      status: 'WAIT_BUYER_PAY',
      total,
      refunded: 0,
      subject: b.subject,
      buyerId: buyer.userId,
      buyerOpenId: buyer.openId,
      notifyUrl: p.notify_url,
      created: this.now(),
      refunds: new Map(),
      bizHash: `${total}|${b.subject}|${buyer.userId}`,
    };
    this.trades.set(trade.tradeNo, trade);
    return trade.tradeNo;
  }

  /** Closes the unpaid trades older than timeoutMs (Alipay's timeout_express) and notifies TRADE_CLOSED. */
  expire() {
    for (const t of this.trades.values()) {
      if (t.status === 'WAIT_BUYER_PAY' && this.now() - t.created >= this.timeoutMs) {
        t.status = 'TRADE_CLOSED';
        this.tradeNotify(t);
      }
    }
  }

  /**
   * The customer confirms a fund authorisation order string in the Alipay app (my.tradePay({orderStr})): the
   * gateway checks its signature, then freezes the amount from the buyer's balance. resultCode as pay().
   */
  freeze(orderStr: string, buyerUserId = '2088102146225135'): '9000' | '4000' | '6001' {
    const p: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(orderStr)) p[k] = v;
    const app = this.apps.get(p.app_id ?? '');
    if (
      !app ||
      p.method !== 'alipay.fund.auth.order.app.freeze' ||
      !p.sign ||
      !verify(content(p, ['sign']), p.sign, app.publicKey)
    )
      return '4000';
    const b = JSON.parse(p.biz_content ?? '{}') as Record<string, string>;
    if (b.product_code !== 'PRE_AUTH_ONLINE' || !b.out_order_no || !b.out_request_no || !b.order_title) return '4000';
    if (this.cancelled.has(b.out_order_no)) return '4000';
    const amount = fen(b.amount);
    const buyer = this.buyers.get(buyerUserId);
    if (!buyer || amount === null || amount < 1) return '4000';
    const existing = this.auths.get(b.out_order_no);
    if (existing && existing.status === 'SUCCESS') return '9000';
    const a: AuthOrder = existing ?? {
      authNo: this.id(`${chinaTime(this.now()).slice(0, 10).replaceAll('-', '')}10002001`, 28),
      outOrderNo: b.out_order_no,
      outRequestNo: b.out_request_no,
      operationId: this.id('2018', 20),
      title: b.order_title,
      orderStatus: 'INIT',
      status: 'INIT',
      frozen: 0,
      rest: 0,
      paid: 0,
      unfrozen: 0,
      payer: buyer,
      notifyUrl: p.notify_url,
      unfreezes: new Map(),
    };
    this.auths.set(a.outOrderNo, a);
    if (buyer.balance < amount) return '4000';
    buyer.balance -= amount;
    Object.assign(a, { status: 'SUCCESS', orderStatus: 'AUTHORIZED', frozen: amount, rest: amount });
    this.notify(a.notifyUrl, {
      notify_type: 'fund_auth_freeze',
      auth_no: a.authNo,
      out_order_no: a.outOrderNo,
      operation_id: a.operationId,
      out_request_no: a.outRequestNo,
      operation_type: 'FREEZE',
      amount: yuan(amount),
      status: 'SUCCESS',
      gmt_create: chinaTime(this.now()),
      gmt_trans: chinaTime(this.now()),
      payer_logon_id: buyer.logonId,
      payer_user_id: buyer.userId,
      total_freeze_amount: yuan(a.frozen),
      total_unfreeze_amount: yuan(a.unfrozen),
      total_pay_amount: yuan(a.paid),
      rest_amount: yuan(a.rest),
    });
    return '9000';
  }

  // ---- notifications ----

  private tradeNotify(t: Trade) {
    this.notify(t.notifyUrl, {
      notify_type: 'trade_status_sync',
      trade_no: t.tradeNo,
      out_trade_no: t.outTradeNo,
      buyer_id: t.buyerId ?? '',
      trade_status: t.status,
      total_amount: yuan(t.total),
      receipt_amount: t.paidAt ? yuan(t.total) : '',
      subject: t.subject,
      gmt_create: chinaTime(t.created),
      gmt_payment: t.paidAt ? chinaTime(t.paidAt) : '',
    });
  }

  /** A notification as Alipay sends it: common fields, then the form body signed with the Alipay key. */
  signNotification(
    fields: Record<string, string>,
    appId = [...this.apps.keys()][0] ?? '',
    opts: { keepSignType?: boolean } = {},
  ): { body: string; notifyId: string } {
    const notifyId = fields.notify_id ?? randomBytes(16).toString('hex');
    const p: Record<string, string> = {
      notify_time: chinaTime(this.now()),
      notify_id: notifyId,
      app_id: appId,
      charset: 'utf-8',
      version: '1.0',
      ...fields,
    };
    for (const k of Object.keys(p)) if (p[k] === '') delete p[k];
    p.sign_type = 'RSA2';
    // keepSignType: signed with sign_type in the string (Alipay's SDKs accept both forms: rsaCheckV1 / rsaCheckV2).
    p.sign = sign(content(p, opts.keepSignType ? ['sign'] : ['sign', 'sign_type']), this.alipayKeys.privateKey);
    return { body: new URLSearchParams(p).toString(), notifyId };
  }

  private notify(url: string | undefined, fields: Record<string, string>) {
    const n = this.signNotification(fields);
    this.notifications.push({ url, ...n });
  }

  /** The last notification (the test delivers it to the adapter, and may deliver it again). */
  lastNotification() {
    const n = this.notifications.at(-1);
    if (!n) throw new Error('no notification sent');
    return n;
  }
}
