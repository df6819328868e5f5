// The Alipay test server's gateway (see ../alipay.ts): apps, buyers, request signatures and timestamps, signed
// answers; the API areas answer their methods in subclasses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from '../local-server.ts';
import { AlipayBills } from '../alipay-bills.ts';
import {
  business,
  content,
  Fail,
  invalid,
  missing,
  pem,
  sign,
  verify,
  type AuthOrder,
  type Buyer,
  type Call,
  type Trade,
} from './model.ts';

export abstract class AlipayCore extends LocalServer {
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
  protected seq = 0;

  constructor() {
    super();
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

  override async stop() {
    this.server.closeAllConnections();
    await super.stop();
  }

  get gateway() {
    return `http://127.0.0.1:${this.port}/gateway.do`;
  }

  protected id(prefix: string, len: number) {
    const n = `${++this.seq}${Date.now()}`;
    return (prefix + n + '0'.repeat(len)).slice(0, len);
  }

  /** The Alipay side of a response: the object's text as written (with `\/`) and its signature. */
  protected answerText(key: string, answer: Record<string, unknown>, signed: boolean) {
    const text = JSON.stringify(answer).replaceAll('/', '\\/');
    return signed ? `{"${key}":${text},"sign":"${sign(text, this.alipayKeys.privateKey)}"}` : `{"${key}":${text}}`;
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
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

  protected checkCommon(p: Record<string, string>, publicKey: string) {
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

  protected biz(p: Record<string, string>): Record<string, unknown> {
    if (!p.biz_content) throw missing('biz_content');
    try {
      return JSON.parse(p.biz_content) as Record<string, unknown>;
    } catch {
      throw invalid('isv.invalid-biz-content', 'biz_content 不是合法的JSON');
    }
  }

  protected route(
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
    const c: Call = { p, b, str, need, app };
    const answer = this.tradeCall(method, c) ?? this.fundCall(method, c);
    if (!answer) throw invalid('isv.invalid-method', '不存在的方法名');
    return answer;
  }

  /** alipay.trade.* (and the bill URL): undefined for a method of another area. */
  protected abstract tradeCall(method: string, c: Call): Record<string, unknown> | undefined;
  /** alipay.fund.*: undefined for a method of another area. */
  protected abstract fundCall(method: string, c: Call): Record<string, unknown> | undefined;
  protected abstract tradeNotify(t: Trade): void;

  protected readonly cancelled = new Set<string>();

  protected findTrade(tradeNo?: string, outTradeNo?: string): Trade {
    if (!tradeNo && !outTradeNo) throw business('ACQ.INVALID_PARAMETER', 'trade_no 和 out_trade_no 不能同时为空');
    const t = tradeNo ? this.trades.get(tradeNo) : [...this.trades.values()].find((x) => x.outTradeNo === outTradeNo);
    if (!t) throw business('ACQ.TRADE_NOT_EXIST', '交易不存在');
    return t;
  }

  protected findAuth(authNo?: string, outOrderNo?: string): AuthOrder {
    const a = authNo
      ? [...this.auths.values()].find((x) => x.authNo === authNo)
      : outOrderNo
        ? this.auths.get(outOrderNo)
        : undefined;
    if (!a) throw business('AUTH_ORDER_NOT_EXIST', '授权单不存在');
    return a;
  }
}
