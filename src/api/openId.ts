// The openId sign-in calls (a file of their own: only the WeChat and Alipay sign-in screens load them).
import { api } from './client.ts';
import type { LoginByOpenIdBody, OpenIdExchangeBody, OpenIdSession } from '../contract/auth.ts';

/** POST openId {code, type}: the openId exchange → token, user, openId and its signature. */
export const openIdExchange = (code: string, type: NonNullable<OpenIdExchangeBody['type']>) =>
  api.post<OpenIdSession>('openId', { body: { code, type } satisfies OpenIdExchangeBody });

/** POST loginByOpenId {openId, openIdSign} → token. */
export const loginByOpenId = (openId: string, openIdSign: string) =>
  api.post<string>('loginByOpenId', { body: { openId, openIdSign } satisfies LoginByOpenIdBody });
