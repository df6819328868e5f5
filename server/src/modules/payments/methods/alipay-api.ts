// Alipay's Open Platform gateway as Alipay (alipay.ts) calls it: the common parameters signed with RSA2 and the
// app private key, and one gateway call whose answer's signature is verified with the Alipay public key.
import type { AdapterDeps } from './adapter.ts';
import { ProviderError } from './adapter.ts';
import { httpClient } from './http.ts';
import type { AlipayConfig } from './alipay.ts';
import {
  ALIPAY_GATEWAY,
  chinaTime,
  signContent,
  rsa2Sign,
  rsa2Verify,
  rawJsonValue,
  type Answer,
} from './alipay-wire.ts';

/** The gateway of one application: its signed parameters and calls. */
export function alipayGateway(config: AlipayConfig, deps: AdapterDeps) {
  const gateway = config.apiBase || ALIPAY_GATEWAY;
  const http = httpClient('alipay', deps);

  /** The signed common + business parameters of one gateway method. */
  function signed(
    method: string,
    biz: Record<string, unknown>,
    notifyUrl?: string,
    returnUrl?: string,
  ): Record<string, string> {
    const params: Record<string, string | undefined> = {
      return_url: returnUrl,
      app_id: config.appId,
      method,
      format: 'JSON',
      charset: 'utf-8',
      sign_type: 'RSA2',
      timestamp: chinaTime(deps.now()),
      version: '1.0',
      notify_url: notifyUrl,
      app_cert_sn: config.appCertSn,
      alipay_root_cert_sn: config.alipayRootCertSn,
      biz_content: JSON.stringify(biz),
    };
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') out[k] = v;
    out.sign = rsa2Sign(signContent(out), config.privateKey);
    return out;
  }

  /** One gateway call: the business answer when code is 10000 (signature verified), else a ProviderError. */
  async function call(method: string, biz: Record<string, unknown>, notifyUrl?: string): Promise<Answer> {
    const res = await http.send({
      method: 'POST',
      url: gateway,
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8', accept: 'application/json' },
      form: signed(method, biz, notifyUrl),
    });
    const text = res.text;
    if (res.status !== 200) throw new ProviderError('bad_response', `alipay ${method}: HTTP ${res.status}`, res.status);
    const key = `${method.replaceAll('.', '_')}_response`;
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ProviderError('bad_response', `alipay ${method}: not JSON`, res.status);
    }
    const answerKey = doc[key] ? key : doc.error_response ? 'error_response' : undefined;
    if (!answerKey) throw new ProviderError('bad_response', `alipay ${method}: no ${key}`, res.status);
    const answer = doc[answerKey] as Answer;
    const sign = typeof doc.sign === 'string' ? doc.sign : undefined;
    if (sign) {
      const raw = rawJsonValue(text, answerKey);
      if (!raw || !rsa2Verify(raw, sign, config.alipayPublicKey)) {
        throw new ProviderError(
          'invalid_response_signature',
          `alipay ${method}: the answer's signature does not verify`,
          res.status,
        );
      }
    } else if (answer.code === '10000') {
      // Alipay signs every answer to a known app; an unsigned success cannot be trusted.
      throw new ProviderError('invalid_response_signature', `alipay ${method}: unsigned answer`, res.status);
    }
    if (answer.code !== '10000') {
      const code = answer.sub_code || answer.code || 'unknown';
      const status = answer.code === '20000' ? 503 : answer.code === '40004' ? 402 : 400;
      throw new ProviderError(code, `alipay ${method}: ${answer.sub_msg || answer.msg || code}`, status);
    }
    return answer;
  }

  return { gateway, signed, call };
}
