// WeChat Pay's signed API as WechatPay (wechatpay.ts) calls it: the merchant's request signature (Authorization), the
// platform's signature on every answer and notification, one signed call with WeChat's error envelope, and the APIv2
// signature of the pay-score queryString.
import { createHmac, createPrivateKey, createPublicKey, createSign, createVerify } from 'node:crypto';
import { ProviderError, type AdapterDeps } from './adapter.ts';
import { httpClient } from './http.ts';
import type { WechatPayConfig } from './wechatpay.ts';
import { DEFAULT_BASE, MAX_SKEW_S, nonce, pem } from './wechatpay-wire.ts';

/** The connection of one merchant: its keys, the platform's public key, and the signed call. */
export function wechatpayApi(c: WechatPayConfig, deps: AdapterDeps) {
  const base = (c.apiBase || DEFAULT_BASE).replace(/\/+$/, '');
  const http = httpClient('WeChat Pay', deps);
  const key = createPrivateKey(pem(c.privateKey));
  const platformKey = createPublicKey(pem(c.platformPublicKey));

  function sign(message: string): string {
    return createSign('RSA-SHA256').update(message).sign(key, 'base64');
  }

  /** Verifies WeChat Pay's signature headers over "timestamp\nnonce\nbody\n". */
  function verified(get: (name: string) => string | undefined, body: string): boolean {
    const ts = get('Wechatpay-Timestamp');
    const n = get('Wechatpay-Nonce');
    const sig = get('Wechatpay-Signature');
    const serial = get('Wechatpay-Serial');
    if (!ts || !n || !sig || serial !== c.platformSerial) return false;
    if (!/^\d+$/.test(ts) || Math.abs(Math.floor(deps.now().getTime() / 1000) - Number(ts)) > MAX_SKEW_S) return false;
    try {
      return createVerify('RSA-SHA256').update(`${ts}\n${n}\n${body}\n`).verify(platformKey, sig, 'base64');
    } catch {
      return false;
    }
  }

  /** The Authorization header of a request: SHA256-RSA with the merchant key over "METHOD\nurl\ntimestamp\nnonce\nbody\n". */
  function authorization(method: string, url: string, payload: string) {
    const ts = Math.floor(deps.now().getTime() / 1000).toString();
    const n = nonce();
    const signature = sign(`${method}\n${url}\n${ts}\n${n}\n${payload}\n`);
    return `WECHATPAY2-SHA256-RSA2048 mchid="${c.mchId}",nonce_str="${n}",signature="${signature}",timestamp="${ts}",serial_no="${c.serialNo}"`;
  }

  /** One signed API call; the answer's signature is checked; WeChat's error envelope {code, message} → ProviderError. */
  async function call<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const signed = authorization(method, url, payload);
    const res = await http.send({
      method,
      url: base + url,
      headers: {
        Authorization: signed,
        Accept: 'application/json',
        'User-Agent': 'Powerly/1.0',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: payload }),
    });
    const text = res.text;
    if (res.status >= 200 && res.status < 300) {
      if (!verified((h) => res.headers.get(h) ?? undefined, text)) {
        throw new ProviderError(
          'bad_signature',
          `WeChat Pay answer to ${method} ${url.split('?')[0]} failed signature verification`,
          res.status,
        );
      }
      if (!text) return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ProviderError(
          'bad_response',
          `WeChat Pay answered ${res.status} with a body that is not JSON`,
          res.status,
        );
      }
    }
    let err: { code?: string; message?: string } = {};
    try {
      err = JSON.parse(text) as typeof err;
    } catch {
      /* not WeChat's envelope (a gateway error) */
    }
    throw new ProviderError(
      err.code ?? (res.status >= 500 ? 'SYSTEM_ERROR' : 'bad_response'),
      err.message ?? `WeChat Pay answered ${res.status}`,
      res.status,
    );
  }

  return { base, sign, verified, authorization, call };
}

/** The APIv2 signature (HMAC-SHA256): non-empty fields sorted by name, "k=v&…&key=KEY", upper-case hex. */
export function v2Sign(fields: Record<string, string>, key: string): string {
  const s = Object.keys(fields)
    .filter((k) => k !== 'sign' && fields[k] !== '')
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
  return createHmac('sha256', key).update(`${s}&key=${key}`).digest('hex').toUpperCase();
}
