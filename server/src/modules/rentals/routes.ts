import { Type } from 'typebox';
import { Envelope, Processing } from '#contract/envelope.ts';
import {
  BalanceRentQuery,
  BalanceRentResult,
  DepositRentBody,
  DepositRentResult,
  SavedCardRentBody,
  Order,
  OrderCheckParams,
  OrderCheckResult,
  OrderIdBody,
  OrderIdQuery,
  OrderListQuery,
  OrderPage,
  OrderShare,
  PublicOrder,
  PublicOrderQuery,
} from '#contract/rentals.ts';
import { rentalKind } from '#core/devices.ts';
import { ok } from '../../lib/envelope.ts';
import { AppError } from '../../lib/errors.ts';
import { t } from '../../lib/i18n.ts';
import type { App } from '../../lib/route.ts';
import type { Clock } from '../../lib/clock.ts';
import { IdemHeaders, idempotent, type KeyStore } from '../../lib/idempotency.ts';
import type { OrderRow } from './repository.ts';
import { currentUser } from '../../plugins/context.ts';
import { Zujie } from './order-state.ts';
import { agentOf, type PaymentsService } from '../payments/service.ts';
import { paid, type RentalsService } from './service.ts';

export default async function rentalRoutes(
  app: App,
  opts: {
    rentals: RentalsService;
    payments: PaymentsService;
    keys: KeyStore;
    clock: Clock;
    /** A saved card's provider ref, for this user and agent (the wallet module owns saved cards). */
    savedCard: (userId: number, cardId: string, agent: string, paymentId: string) => Promise<string>;
  },
) {
  app.post(
    '/cdb/cabinet/useDepositToRent',
    {
      schema: {
        tags: ['rentals'],
        summary: 'Pay the deposit (card pre-authorisation, or top-up into the wallet) and start the rental',
        headers: IdemHeaders,
        body: DepositRentBody,
        response: { 200: Envelope(DepositRentResult) },
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
          const r = await opts.rentals.rentWithDeposit(currentUser(req), {
            qrcode: b.qrcode,
            token: b.stripeToken,
            paymentId: b.paymentId,
            paymentIntent: b.paymentIntent,
            returnUrl: b.returnUrl,
            agent,
            kind: rentalKind(b.deviceType),
          });
          return ok(paid(r));
        },
        { committed: (id: string) => ok({ outTradeNo: id }) },
      );
    },
  );

  app.post(
    '/cdb/cabinet/savedCardToRent',
    {
      schema: {
        tags: ['rentals'],
        summary: 'Pay the deposit with a saved card (hold or top-up, as useDepositToRent) and start the rental',
        headers: IdemHeaders,
        body: SavedCardRentBody,
        response: { 200: Envelope(DepositRentResult) },
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
          const user = currentUser(req);
          const token = await opts.savedCard(user.id, b.cardId, agent, b.paymentId);
          const r = await opts.rentals.rentWithDeposit(user, {
            qrcode: b.qrcode,
            token,
            paymentId: b.paymentId,
            paymentIntent: b.paymentIntent,
            returnUrl: b.returnUrl,
            agent,
            kind: rentalKind(b.deviceType),
          });
          return ok(paid(r));
        },
        { committed: (id: string) => ok({ outTradeNo: id }) },
      );
    },
  );

  app.get(
    '/cdb/cabinet/useBalanceToRent',
    {
      schema: {
        tags: ['rentals'],
        summary: 'Borrow with the wallet balance: hold the deposit from the wallet and start the rental',
        headers: IdemHeaders,
        querystring: BalanceRentQuery,
        response: { 200: Envelope(BalanceRentResult) },
        errorReasons: {
          422:
            'A business rule refused it; `msg` says why: an open rental already, a wallet balance below the deposit, or (error.depositByPayment) ' +
            "the cabinet's agent has its deposits always paid and the balance does not also cover the overtime fee: pay the deposit through useDepositToRent",
        },
      },
      preHandler: app.requireUser,
    },
    async (req, reply) =>
      idempotent(
        opts.keys,
        opts.clock,
        req,
        reply,
        req.query,
        async () =>
          ok({
            outTradNo: await opts.rentals.rentWithBalance(
              currentUser(req),
              req.query.qrcode,
              rentalKind(req.query.deviceType),
            ),
          }),
        { committed: (id: string) => ok({ outTradNo: id }) },
      ),
  );

  app.post(
    '/cdb/mine/order/check/:tradeNo/:payMode',
    {
      schema: {
        tags: ['rentals'],
        summary:
          'Poll a rental: code 1 while the cabinet has not answered, 0 once the power bank is out, 422 if the eject failed',
        params: OrderCheckParams,
        response: { 200: Type.Union([Envelope(OrderCheckResult), Processing]) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const o = await opts.rentals.check(currentUser(req), req.params.tradeNo);
      if (o.zujie === Zujie.pending) return ok(null, 1, t(req.locale, 'status.processing'));
      if (o.zujie === Zujie.cancelled) throw new AppError(422, 'error.rentalFailed');
      return ok({
        orderId: o.id,
        orderStatus: o.zujie,
        type: 'cdb',
        out_trade_no: o.id,
        pay_type: req.params.payMode,
        shebei: o.powerbank_id ?? '',
        number: o.slot ?? 0,
      });
    },
  );

  app.get(
    '/cdb/mine/order/list',
    {
      schema: {
        tags: ['rentals'],
        summary: "The user's rental orders, open ones first, then newest first",
        querystring: OrderListQuery,
        response: { 200: Envelope(OrderPage) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const { page, pageSize } = req.query;
      const r = await opts.rentals.list(currentUser(req), page, pageSize);
      return ok({
        page: { records: r.records.map((o) => opts.rentals.toWire(o)), total: r.total, current: page, size: pageSize },
      });
    },
  );

  app.get(
    '/cdb/mine/order/detail',
    {
      schema: {
        tags: ['rentals'],
        summary: 'One rental order',
        querystring: OrderIdQuery,
        response: { 200: Envelope(Order) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(opts.rentals.toWire(await opts.rentals.check(currentUser(req), req.query.orderId))),
  );

  app.post(
    '/cdb/order/buyOrder',
    {
      schema: {
        tags: ['rentals'],
        summary:
          'Buy the power bank of an open rental: the order is settled for the buy-out fee (overtime amount, at most the deposit) and need not be returned',
        headers: IdemHeaders,
        body: OrderIdBody,
        response: { 200: Envelope(Order) },
      },
      preHandler: app.requireUser,
    },
    async (req, reply) =>
      idempotent(
        opts.keys,
        opts.clock,
        req,
        reply,
        req.body,
        async () => ok(opts.rentals.toWire(await opts.rentals.buyByUser(currentUser(req), req.body.orderId))),
        { committed: (o: OrderRow) => ok(opts.rentals.toWire(o)) },
      ),
  );

  app.post(
    '/cdb/mine/order/share',
    {
      schema: {
        tags: ['rentals'],
        summary:
          "The owner's share link for the token-less order detail: the order id and its unguessable sign (made once)",
        body: OrderIdBody,
        response: { 200: Envelope(OrderShare) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(await opts.rentals.share(currentUser(req), req.body.orderId)),
  );

  app.get(
    '/cdb/mine/order/detail/public',
    {
      schema: {
        tags: ['rentals'],
        summary:
          'The token-less order detail: status, times, fee rule and estimate of an order, for the holder of its share sign; no session',
        querystring: PublicOrderQuery,
        response: { 200: Envelope(PublicOrder) },
      },
    },
    async (req) => ok(opts.rentals.toPublicWire(await opts.rentals.publicDetail(req.query.orderId, req.query.sign))),
  );
}
