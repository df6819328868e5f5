// Sign-in calls of this slice.
import { api } from './client.ts';
import type { User } from '../stores/session.ts';

/** POST saas/tourist/login?code={deviceCode} → token. */
export function touristLogin(deviceCode: string): Promise<string> {
  return api.post<string>('saas/tourist/login', { query: { code: deviceCode }, noToken: true });
}

/** GET userInfo → the signed-in user. */
export function getUserInfo(): Promise<User> {
  return api.get<User>('userInfo');
}

// ---- Sign-in calls (issue 4) ----

/** The captcha image URL of a uuid (GET captcha.webp?uuid=). */
export function captchaUrl(uuid: string, nonce = 0): string {
  return `${api.config.baseURL ?? '/cdb-app-api/v1/app/'}captcha.webp?uuid=${encodeURIComponent(uuid)}&n=${nonce}`;
}

/** POST saas/sendVerifyCode ?mobile&timestamp&sign, body reCAPTCHA {token, platform} (+ the image captcha). */
export function sendVerifyCode(p: { mobile: string; timestamp: string; sign: string; botToken: string; uuid: string; captcha: string }): Promise<null> {
  return api.post<null>('saas/sendVerifyCode', {
    query: { mobile: p.mobile, timestamp: p.timestamp, sign: p.sign },
    body: { reCAPTCHA: JSON.stringify({ token: p.botToken, platform: 'web' }), uuid: p.uuid, captcha: p.captcha },
  });
}

/** POST saas/mobileLogin ?mobile&verifyCode&areaCode&registAndLoginType=1 → token. */
export function mobileLogin(p: { mobile: string; verifyCode: string; areaCode: string }): Promise<string> {
  return api.post<string>('saas/mobileLogin', { query: { ...p, registAndLoginType: 1 } });
}

export const googleLogin = (androidToken: string) =>
  api.post<string>('saas/loginGoogleByCode', { body: { androidToken, canRegistWithOutUnion: true } });
export const appleLogin = (token: string) => api.post<string>('loginAppleByToken', { body: { token } });
export const facebookLogin = (token: string) =>
  api.post<string>('saas/loginFacebookByToken', { body: { token, canRegistWithOutUnion: true } });
export const wechatLogin = (code: string) => api.post<string>('loginByCode', { body: { code } });
export const alipayLogin = (code: string) => api.post<string>('loginAlipayByCode', { body: { code } });
export const authCodeUrl = (url: string, type: 'wechat' | 'alipay') => api.post<string>('authCodeUrl', { body: { url, type } });
export const logoutCall = () => api.post<null>('logout');
export const loginConfig = () => api.get<{ sandbox: string[] }>('loginConfig', { noToken: true });
