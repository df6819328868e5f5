import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import { MoreBody, MoreQuery, MoreValues, SessionToken, TouristLoginQuery, UserInfo } from '#contract/auth.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import { refused } from '../../lib/errors.ts';
import { currencySymbol } from '../venues/service.ts';
import { toMajor } from '#core/money.ts';
import type { AuthService, UserRow } from './service.ts';

/** The user as userInfo answers it (and the openId exchange with its session). */
export async function userInfo(opts: { auth: AuthService; walletOf: WalletOf }, u: UserRow) {
  const w = await opts.walletOf(u.id, u.currency);
  return {
    pId: u.id,
    pname: u.name,
    pbalance: toMajor(w.balance, u.currency),
    pcurrencyName: currencySymbol(u.currency),
    pyajin: toMajor(w.held, u.currency),
    pmobile: u.mobile,
    email: u.email,
    p_currency: u.currency,
    userType: u.kind,
    ...(await opts.auth.providerFields(u)),
  };
}

/** The user's wallet in a currency (the wallet module's, given at wiring: auth does not import the wallet). */
export type WalletOf = (userId: number, currency: string) => Promise<{ balance: number; held: number }>;

export default async function authRoutes(app: App, opts: { auth: AuthService; walletOf: WalletOf }) {
  app.post(
    '/saas/tourist/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Tourist sign-in: a tourist user (the same one again for the same device code) and a session token',
        querystring: TouristLoginQuery,
        response: { 200: Envelope(SessionToken) },
      },
    },
    async (req) => {
      // No tourist login in the WeChat browser; WeChat users sign in with WeChat.
      if (/MicroMessenger/i.test(req.headers['user-agent'] ?? '')) throw refused('error.login.touristWechat');
      const { token } = await opts.auth.touristLogin(req.query.code, req.locale);
      return ok(token);
    },
  );

  app.get(
    '/userInfo',
    {
      schema: {
        tags: ['auth'],
        summary: 'The signed-in user',
        headers: Type.Object({ token: Type.Optional(Type.String()) }),
        response: { 200: Envelope(UserInfo) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(await userInfo(opts, currentUser(req))),
  );

  app.get(
    '/user/more',
    {
      schema: {
        tags: ['auth'],
        summary:
          "The user's stored values of the given keys (user/more: monriBilling, the JSON text /MonriPay's billing details were saved as)",
        querystring: MoreQuery,
        response: { 200: Envelope(MoreValues) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(await opts.auth.more(currentUser(req).id, req.query.keys)),
  );

  app.post(
    '/user/more',
    {
      schema: {
        tags: ['auth'],
        summary:
          'Store a value of the user (user/more: monriBilling as JSON text of address, fullName, city, zip, phone, country, email, orderInfo; validated, at most 1000 characters)',
        body: MoreBody,
        response: { 200: Envelope(Type.Null()) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      await opts.auth.setMore(currentUser(req).id, req.body);
      return ok(null);
    },
  );
}
