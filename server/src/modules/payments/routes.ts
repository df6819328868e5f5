import { Envelope } from '#contract/envelope.ts';
import {
  MoneyStep,
  MoneyTimelineQuery,
  PaymentMethod,
  PaymentMethodsQuery,
  PayOrderBody,
  PayOrderResult,
} from '#contract/payments.ts';
import { toMajor } from '#core/money.ts';
import { Type } from 'typebox';
import type { Clock } from '../../lib/clock.ts';
import { ok } from '../../lib/envelope.ts';
import { badRequest } from '../../lib/errors.ts';
import { IdemHeaders, idempotent, type KeyStore } from '../../lib/idempotency.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import { currencySymbol } from '../venues/service.ts';
import { agentOf, cardToken, paid, type ActionRequired, type PaymentsService, type SavedCardRef } from './service.ts';

type User = ReturnType<typeof currentUser>;
/**
 * What these routes ask of rentals (its service, passed in by the app): the cabinet's plan, a debt payment and the
 * rider's own order. Payments does not import rentals (rentals pays through payments).
 */
export interface RentalsPort {
  resolveCabinet(
    qrcode: string,
  ): Promise<{ priced: { venue: { currency: string }; planRow: { deposit_type: number } } }>;
  payDebt(
    user: User,
    input: {
      outTradeNo: string;
      paymentId: string;
      token?: string;
      paymentIntent?: string;
      returnUrl?: string;
      agent?: string;
      key?: string;
      couponNo?: string;
    },
  ): Promise<string | ActionRequired>;
  check(user: User, orderId: string): Promise<{ id: string }>;
}

/** A payment transition as a step of the order's money timeline. */
function step(t: { purpose: string; from_status: string | null; to_status: string }): MoneyStep['step'] | null {
  if (t.to_status === 'declined') return 'failed';
  if (t.from_status == null && t.to_status === 'authorized') return 'held';
  if (t.from_status == null && t.to_status === 'captured') return 'charged';
  if (t.to_status === 'captured' || t.to_status === 'partially_captured') return 'captured';
  if (t.to_status === 'voided') return 'released';
  if (t.to_status.startsWith('refund:') || t.to_status === 'refunded') return 'refunded';
  return null;
}

export default async function paymentRoutes(
  app: App,
  opts: {
    payments: PaymentsService;
    rentals: RentalsPort;
    keys: KeyStore;
    clock: Clock;
    /** A saved card of the user and agent, usable with the method paymentId: its provider ref (the wallet's). */
    savedCard: SavedCardRef;
  },
) {
  app.get(
    '/cdb/payment/method/list',
    {
      schema: {
        tags: ['payments'],
        summary:
          "The payment methods for the cabinet's currency (qrcode), or for a wallet's currency (currency, agentId)",
        querystring: PaymentMethodsQuery,
        response: { 200: Envelope(Type.Array(PaymentMethod)) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const agent = req.query.agentId
        ? await opts.payments.agent(req.query.agentId)
        : await agentOf(opts.payments, req.headers);
      let c: string;
      let hold = false;
      if (req.query.qrcode) {
        const priced = (await opts.rentals.resolveCabinet(req.query.qrcode)).priced;
        c = priced.venue.currency;
        hold = priced.planRow.deposit_type === 0;
      } else if (req.query.currency) c = req.query.currency.toUpperCase();
      else throw badRequest('error.validation.field', { field: 'qrcode' });
      return ok(opts.payments.methods(c, currencySymbol(c), agent, { hold, platform: req.query.platform }));
    },
  );

  app.post(
    '/cdb/payment/stripe/multicurrency/payOrder',
    {
      schema: {
        tags: ['payments'],
        summary:
          'payType FK: pay what a failed deduction left on an order (never starts a rental), with a new card (stripeToken) or a saved one (cardId); may answer action (3-D Secure)',
        headers: IdemHeaders,
        body: PayOrderBody,
        response: { 200: Envelope(PayOrderResult) },
      },
      preHandler: app.requireUser,
    },
    async (req, reply) => {
      const b = req.body;
      return idempotent(
        opts.keys,
        opts.clock,
        req,
        reply,
        b,
        async () => {
          const agent = await agentOf(opts.payments, req.headers);
          const key = req.headers['idempotency-key'];
          const user = currentUser(req);
          const r = await opts.rentals.payDebt(user, {
            outTradeNo: b.outTradeNo,
            paymentId: b.paymentId,
            token: await cardToken(opts.savedCard, user.id, b, agent),
            paymentIntent: b.paymentIntent,
            returnUrl: b.returnUrl,
            agent,
            key: typeof key === 'string' ? key : undefined,
            couponNo: b.couponNo,
          });
          return ok(paid(r));
        },
        { committed: (id: string) => ok(paid(id)) },
      );
    },
  );

  app.get(
    '/cdb/order/money',
    {
      schema: {
        tags: ['payments'],
        summary:
          "An order's money timeline: held, captured (capturing less releases the rest), released, refunded, charged off-session, failed",
        querystring: MoneyTimelineQuery,
        response: { 200: Envelope(Type.Array(MoneyStep)) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const order = await opts.rentals.check(currentUser(req), req.query.orderId);
      const steps = (await opts.payments.timeline(order.id)).flatMap((t) => {
        const s = step(t);
        return s
          ? [
              {
                step: s,
                purpose: t.purpose,
                amount: toMajor(Number(t.amount ?? 0), t.currency),
                currency: t.currency,
                at: new Date(t.at).toISOString(),
              },
            ]
          : [];
      });
      return ok(steps);
    },
  );
}
