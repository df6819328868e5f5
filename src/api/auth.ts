// Sign-in calls of this slice.
import { api } from './client.ts';
import type {
  AppleLoginBody,
  AuthCodeUrlBody,
  CaptchaQuestion,
  FacebookLoginBody,
  GoogleLoginBody,
  LoginConfig,
  MobileLoginQuery,
  SendVerifyCodeBody,
  SendVerifyCodeQuery,
  UserInfo,
} from '../contract/auth.ts';

/** POST saas/tourist/login?code={deviceCode} → token. */
export function touristLogin(deviceCode: string): Promise<string> {
  return api.post<string>('saas/tourist/login', { query: { code: deviceCode }, noToken: true });
}

/** GET userInfo → the signed-in user. */
export function getUserInfo(): Promise<UserInfo> {
  return api.get<UserInfo>('userInfo');
}

// ---- Sign-in calls ----

/** The captcha image URL of a uuid (GET captcha.webp?uuid=). */
export function captchaUrl(uuid: string, nonce = 0): string {
  return `${api.config.baseURL ?? '/cdb-app-api/v1/app/'}captcha.webp?uuid=${encodeURIComponent(uuid)}&n=${nonce}`;
}

/** GET captcha/question?uuid=: the picture's accessible alternative, as a question in the user's language. */
export function captchaQuestion(uuid: string): Promise<CaptchaQuestion> {
  return api.get<CaptchaQuestion>('captcha/question', { query: { uuid } });
}

/** POST saas/sendVerifyCode ?mobile&timestamp&sign, body reCAPTCHA {token, platform} (+ the image captcha). */
export function sendVerifyCode(p: {
  mobile: string;
  timestamp: string;
  sign: string;
  botToken: string;
  uuid: string;
  captcha: string;
}): Promise<null> {
  const query: SendVerifyCodeQuery = { mobile: p.mobile, timestamp: p.timestamp, sign: p.sign };
  const body: SendVerifyCodeBody = {
    reCAPTCHA: JSON.stringify({ token: p.botToken, platform: 'web' }),
    uuid: p.uuid,
    captcha: p.captcha,
  };
  return api.post<null>('saas/sendVerifyCode', { query, body });
}

/** POST saas/mobileLogin ?mobile&verifyCode&areaCode&registAndLoginType=1 → token. */
export function mobileLogin(p: Omit<MobileLoginQuery, 'registAndLoginType'>): Promise<string> {
  const query: MobileLoginQuery = { ...p, registAndLoginType: '1' };
  return api.post<string>('saas/mobileLogin', { query });
}

const post = <B extends Record<string, string | undefined>>(path: string, body: B) => api.post<string>(path, { body });
export const googleLogin = (androidToken: string) =>
  post<GoogleLoginBody>('saas/loginGoogleByCode', { androidToken, canRegistWithOutUnion: 'true' });
export const appleLogin = (token: string) => post<AppleLoginBody>('loginAppleByToken', { token });
export const facebookLogin = (token: string) =>
  post<FacebookLoginBody>('saas/loginFacebookByToken', { token, canRegistWithOutUnion: 'true' });
export const authCodeUrl = (url: string, type: NonNullable<AuthCodeUrlBody['type']>) =>
  post<AuthCodeUrlBody>('authCodeUrl', { url, type });
export const logoutCall = () => api.post<null>('logout');
export const loginConfig = () => api.get<LoginConfig>('loginConfig', { noToken: true });
