// The routes of the methods beyond the card provider: the payer's details (API), the customer's return from the
// provider, the providers' notifications, and the sandbox's checkout page (test mode of every method).
import { Envelope } from '#contract/envelope.ts';
import { OtpBody, OtpResult, PayerBody, PayerResult } from '#contract/payments.ts';
import { EMAIL } from '#core/email.ts';
import { toMajor } from '#core/money.ts';
import { Type } from 'typebox';
import type { Clock } from '../../../lib/clock.ts';
import { ok } from '../../../lib/envelope.ts';
import { badRequest, refused } from '../../../lib/errors.ts';
import { pickLocale, t } from '../../../lib/i18n.ts';
import type { App } from '../../../lib/route.ts';
import { currentUser } from '../../../plugins/context.ts';
import { agentOf, type PaymentsService } from '../service.ts';
import type { PayerDetails, ExternalRepository } from './repository.ts';
import { ProviderError } from './adapter.ts';
import { sandboxDecide } from './sandbox.ts';
import type { CardFields } from './card-seal.ts';
import { DIRECT_CARD_FIELDS, validateDirectCard, validateOtp } from '#core/card.ts';

/** API: POST cdb/payment/method/payer. */
export async function payerRoutes(
  app: App,
  opts: {
    payments: PaymentsService;
    clock: Clock;
    /** The user's WeChat openid from their WeChat sign-in (auth's identities), the payer of a WeChat Pay JSAPI payment. */
    wechatOpenId: (userId: number) => Promise<string | undefined>;
  },
) {
  app.post(
    '/cdb/payment/method/payer',
    {
      schema: {
        tags: ['payments'],
        summary:
          "A method beyond the card: the payer's details (phone, e-mail, card token or, for a live direct card charge, the card fields, agreement) checked and kept as a single-use token for the paying call's stripeToken",
        body: PayerBody,
        response: { 200: Envelope(PayerResult) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const b = req.body;
      const agent = await agentOf(opts.payments, req.headers);
      const m = opts.payments.externalMethod(b.paymentId, agent);
      if (!m) throw badRequest('error.paymentMethod');
      const details: PayerDetails = {};
      /** 's Flutterwave card form (live or test mode): e-mail, and the phone with its area code. */
      const direct = m.provider.definition.payTypes.some((t) => t.type === m.payType && t.directCard === true);
      if (m.kind === 'push') {
        // M-Pesa and mobile money need the phone; digits only, with the area code when given apart.
        const phone = `${b.areaCode ?? ''}${b.phoneNumber ?? ''}`.replace(/[\s()+-]/g, '');
        if (!b.phoneNumber?.trim()) throw badRequest('error.payment.phoneRequired');
        if (!/^\d{8,15}$/.test(phone)) throw badRequest('error.login.phone');
        details.phone = phone;
      } else if (direct && b.phoneNumber?.trim()) {
        // The card form's phone with its area code (optional; checked when given).
        const phone = `${b.areaCode ?? ''}${b.phoneNumber}`.replace(/[\s()+-]/g, '');
        if (!/^\d{8,15}$/.test(phone)) throw badRequest('error.login.phone');
        details.phone = phone;
      } else if (b.phoneNumber) details.phone = b.phoneNumber.replace(/\D/g, '').slice(0, 15);
      if (b.email) {
        if (!EMAIL.test(b.email)) throw badRequest('error.invoice.emailInvalid');
        details.email = b.email;
      }
      // A live card method with the provider's own SDK (Monri Components, MercadoPago.js) takes the card (and Monri's
      // e-mail) on its app screen after the paying call; in test mode the sandbox card form takes them here.
      const onSdkScreen = m.kind === 'card' && m.provider.cardOnSdkScreen;
      // Monri's form and the direct card form (Flutterwave needs an e-mail on every charge) ask for the e-mail.
      if (((m.payType === 'Monri_WebPay' && !onSdkScreen) || direct) && !details.email)
        throw badRequest('error.invoice.emailRequired');
      const cardFields = [b.cardNumber, b.expiryMonth, b.expiryYear, b.cvv].some((v) => v !== undefined);
      let card: CardFields | undefined;
      if (m.kind === 'card' && m.provider.takesCardFields(m.payType)) {
        // Live direct card charge: the card fields, sealed in the token by payerToken, never kept in clear.
        const faults = validateDirectCard(b, opts.clock.now());
        const field = DIRECT_CARD_FIELDS.find((f) => faults[f]);
        if (field) throw badRequest(`error.card.${field}.${faults[field]}`);
        card = {
          number: b.cardNumber!.replace(/[\s-]/g, ''),
          expMonth: b.expiryMonth!.trim(),
          expYear: b.expiryYear!.trim(),
          cvv: b.cvv!.trim(),
        };
        // saveCardFlag: saved once the charge is paid (the provider's token then), never the card fields.
        if (b.saveCardFlag === true && m.provider.savesAfterPayment) details.saveCard = true;
      } else if (cardFields) {
        // Card fields reach only a live direct card charge; anywhere else they are refused, never stored.
        throw badRequest('error.payment.cardFieldsRefused');
      } else if (m.kind === 'card' && !(onSdkScreen && !b.cardToken)) {
        if (!b.cardToken) throw badRequest('error.validation.field', { field: 'cardToken' });
        details.card = {
          token: b.cardToken,
          paymentMethodId: b.paymentMethodId,
          issuerId: b.issuerId,
          installments: b.installments,
        };
      }
      // WeChat Pay score (a deposit-free rental): only once the user ticked the entrustment agreement.
      if (b.hold && m.provider.capabilities.hold && m.kind === 'jsapi' && m.payType === 'WeChat_MP' && !b.agreement)
        throw badRequest('error.payment.agreementRequired');
      // WeChat Pay in the WeChat browser (JSAPI, and pay score) is paid by the rider's own WeChat openid: the one their
      // WeChat sign-in stored, never one the client names; a client's openid is taken only for a rider without one.
      const wechatJsapi = m.kind === 'jsapi' && m.payType === 'WeChat_MP';
      const stored = wechatJsapi ? await opts.wechatOpenId(currentUser(req).id) : undefined;
      if (stored) details.openId = stored;
      else if (b.openId) details.openId = b.openId;
      else if (wechatJsapi && !m.provider.sandbox) throw refused('error.payment.wechatSignInRequired');
      // A mobile-browser payment's provider wants the payer's address (WeChat Pay H5's payer_client_ip).
      if (m.kind === 'redirect' && req.ip) details.ip = req.ip;
      details.agreement = b.agreement ?? false;
      return ok({ token: await m.provider.payerToken(currentUser(req).id, m.payType, details, card) });
    },
  );

  app.post(
    '/cdb/payment/method/otp',
    {
      schema: {
        tags: ['payments'],
        summary:
          "The one-time code the card's issuer sent (a Flutterwave card charge in the validate-charge flow): passed to the provider once; answers the payment's state and where the app resumes it",
        body: OtpBody,
        response: { 200: Envelope(OtpResult) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const { outTradeNo } = req.body;
      const otp = req.body.otp.replace(/\s+/g, '');
      if (validateOtp(otp)) throw badRequest('error.payment.incorrect_otp');
      const user = currentUser(req).id;
      for (const p of opts.payments.allMethodProviders()) {
        let row;
        try {
          row = await p.submitOtp(outTradeNo, user, otp);
        } catch (err) {
          // A wrong (or expired) code: the payment keeps waiting for the right one.
          if (err instanceof ProviderError && (err.status ?? 400) < 500 && err.code !== 'network') {
            throw refused(err.code === 'incorrect_otp' ? 'error.payment.incorrect_otp' : 'error.payment.card_declined');
          }
          throw err;
        }
        if (row) return ok({ state: row.state, next: resumePath(row.app_return_url, outTradeNo) });
      }
      throw badRequest('error.payment.otpNotExpected');
    },
  );
}

/** Where the app resumes a payment: the screen it left (its confirm screen reads payment_intent). */
export function resumePath(appReturnUrl: string | null, outTradeNo: string) {
  // Always a path of this origin: never protocol-relative (//host) or another host's address, whatever was stored.
  const target = `/${(appReturnUrl || '/#/').replace(/^[/\\]+/, '')}`;
  const [path = '/', hash = ''] = target.split('#');
  const sep = hash.includes('?') ? '&' : '?';
  return hash
    ? `${path}#${hash}${sep}payment_intent=${outTradeNo}`
    : `${path}${path.includes('?') ? '&' : '?'}payment_intent=${outTradeNo}`;
}

/** Outside the API: /payments/return/:outTradeNo (notifications: the webhook entry, payments/webhooks.ts). */
export async function methodReturnRoutes(app: App, opts: { repo: ExternalRepository; clock: Clock }) {
  const back = async (outTradeNo: string, params: Record<string, string>) => {
    const saved = await opts.repo.saveReturn(outTradeNo, params, opts.clock.now());
    if (!saved) return '/';
    return resumePath(saved.app_return_url, outTradeNo);
  };
  const Params = Type.Object({ outTradeNo: Type.String({ pattern: '^[A-Za-z0-9]{1,40}$' }) });
  const strings = (o: unknown) =>
    Object.fromEntries(
      Object.entries((o ?? {}) as Record<string, unknown>)
        .filter(([, v]) => typeof v === 'string')
        .slice(0, 30),
    ) as Record<string, string>;
  app.get(
    '/payments/return/:outTradeNo',
    {
      schema: {
        tags: ['payments'],
        summary: "The customer is back from the provider's page (query parameters kept for completing the payment)",
        params: Params,
      },
    },
    async (req, reply) => reply.redirect(await back(req.params.outTradeNo, strings(req.query)), 303),
  );
  app.post(
    '/payments/return/:outTradeNo',
    {
      schema: {
        tags: ['payments'],
        summary: "The customer is back from the provider's page by a form POST (PayGate)",
        params: Params,
      },
    },
    async (req, reply) =>
      reply.redirect(await back(req.params.outTradeNo, { ...strings(req.query), ...strings(req.body) }), 303),
  );
}

/** The sandbox's checkout page (SANDBOX=on): the provider's hosted page of every method in test mode. */
export async function sandboxCheckoutRoutes(app: App, opts: { repo: ExternalRepository }) {
  const Params = Type.Object({ ref: Type.String({ pattern: '^sbx_[A-Za-z0-9_-]{1,40}$' }) });
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  app.get(
    '/sandbox-pay/checkout/:ref',
    { schema: { tags: ['sandbox-pay'], summary: "A method's checkout page in test mode", params: Params } },
    async (req, reply) => {
      const r = await opts.repo.sandboxFind(req.params.ref);
      const lang = pickLocale(req.headers['accept-language']);
      if (!r) return reply.status(404).type('text/plain; charset=utf-8').send(t(lang, 'sandbox.checkout.missing'));
      const amount = new Intl.NumberFormat(lang, { style: 'currency', currency: r.currency }).format(
        toMajor(r.amount, r.currency),
      );
      const title = t(lang, 'sandbox.checkout.title', { method: r.pay_type });
      const btn = 'min-height:48px;min-width:44px;font-size:1rem;margin:.5rem 0;width:100%';
      return reply.type('text/html; charset=utf-8')
        .send(`<!doctype html><html lang="${lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem">
<main><h1>${esc(title)}</h1><p>${esc(t(lang, 'sandbox.checkout.text'))}</p>
<p style="font-size:1.5rem"><strong>${esc(amount)}</strong></p>
${
  r.state === 'pending'
    ? `<form method="post"><button name="decision" value="approve" style="${btn}">${esc(t(lang, r.capture === 'manual' ? 'sandbox.checkout.authorize' : 'sandbox.checkout.approve'))}</button>
<button name="decision" value="cancel" style="${btn}">${esc(t(lang, 'sandbox.checkout.cancel'))}</button></form>`
    : `<p role="status">${esc(t(lang, 'sandbox.checkout.done'))}</p><a href="/payments/return/${esc(r.out_trade_no)}">${esc(t(lang, 'sandbox.checkout.back'))}</a>`
}
</main></body></html>`);
    },
  );
  app.post(
    '/sandbox-pay/checkout/:ref',
    {
      schema: {
        tags: ['sandbox-pay'],
        summary: "The customer's answer on a method's checkout page in test mode",
        params: Params,
        body: Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('cancel')]) }),
      },
    },
    async (req, reply) => {
      const r = await sandboxDecide(opts.repo, req.params.ref, req.body.decision === 'approve');
      if (!r) return reply.status(404).send();
      return reply.redirect(
        `/payments/return/${r.out_trade_no}${req.body.decision === 'cancel' ? '?cancel=1' : ''}`,
        303,
      );
    },
  );
}
