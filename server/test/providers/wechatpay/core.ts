// The WeChat Pay test server's HTTP side (see ../wechatpay.ts): merchants, request signatures (WECHATPAY2-SHA256-RSA2048)
// and signed answers; each API area is a subclass.
import { createSign, createVerify, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from '../local-server.ts';
import { WechatBills } from '../wechatpay-bills.ts';
import { ApiError, type Merchant, type RefundRec, type ServiceOrder, type Txn } from './model.ts';

export abstract class WechatPayCore extends LocalServer {
  readonly platformSerial = `PUB_KEY_ID_${randomBytes(12).toString('hex').toUpperCase()}`;
  protected readonly platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
  /** The platform public key as the merchant downloads it (PEM). */
  readonly platformPublicKeyPem = this.platform.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  protected readonly merchants = new Map<string, Merchant>();
  protected readonly txns = new Map<string, Txn>();
  protected readonly byTransactionId = new Map<string, Txn>();
  protected readonly refunds = new Map<string, RefundRec>();
  protected readonly orders = new Map<string, ServiceOrder>();
  protected seq = 0;
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

  /** Registers a merchant (its API certificate's public key, keys, pay-score service). */
  addMerchant(m: Merchant) {
    this.merchants.set(m.mchId, m);
  }

  protected id(digits: number) {
    const s = `${Date.now()}${++this.seq}${Math.floor(Math.random() * 1e9)}`;
    return s.padEnd(digits, '0').slice(0, digits);
  }

  protected signWith(key: KeyObject, message: string) {
    return createSign('RSA-SHA256').update(message).sign(key, 'base64');
  }

  /** Wechatpay-* headers over a body, as WeChat Pay signs its answers and notifications. */
  protected signatureHeaders(
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

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
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

  protected authenticate(req: IncomingMessage, method: string, url: string, raw: string): Merchant {
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

  protected abstract route(m: Merchant, method: string, url: URL, b: Record<string, unknown>, raw: string): unknown;
}
