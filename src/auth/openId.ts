// A WeChat or Alipay person's signed openid (the openId exchange's answer), kept so that they sign in again with
// loginByOpenId without authorising again; cleared by logout and when the server no longer takes it.
import { persistentAtom } from '@nanostores/persistent';
import { loginByOpenId, openIdExchange } from '../api/openId.ts';

/** `<openId>\n<openIdSign>`, or empty. */
export const $openIdLogin = persistentAtom<string>('openIdLogin', '');

/** The code's session through the openId exchange; its signed openid is kept. The token. */
export async function exchangeCode(code: string, provider: 'wechat' | 'alipay'): Promise<string> {
  const s = await openIdExchange(code, provider);
  $openIdLogin.set(`${s.openId}\n${s.openIdSign}`);
  return s.token;
}

/** A session from the kept signed openid, or null when none is kept or the server refused it (then it is dropped). */
export async function signInWithOpenId(): Promise<string | null> {
  const [openId, sign] = $openIdLogin.get().split('\n');
  if (!openId || !sign) return null;
  try {
    return await loginByOpenId(openId, sign);
  } catch {
    $openIdLogin.set('');
    return null;
  }
}
