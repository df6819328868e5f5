// chargenow/mifi/*: the catalogue proxy, buying, pickup (scan and QR), the device detail and traffic.
import { Envelope } from '#contract/envelope.ts';
import {
  BindBody,
  CancelBody,
  CheckPickUpResult,
  MifiCouponBody,
  MifiCouponResult,
  DepositBody,
  MifiConfirmBody,
  FlowUsageBody,
  MifiDevice,
  MifiOrderDetailQuery,
  MifiOrderIdQuery,
  MifiOrderListBody,
  MifiOrderPage,
  MifiOrderResult,
  MifiPackage,
  MifiPackagePaid,
  MifiQueryBody,
  MifiQueryResult,
  MifiRentBody,
  OrderIdResult,
  PickupBody,
  TrafficBody,
  TrafficResult,
  UsageRecord,
} from '#contract/mifi.ts';
import { ok } from '../../lib/envelope.ts';
import type { Clock } from '../../lib/clock.ts';
import { IdemHeaders, idempotent, type KeyStore } from '../../lib/idempotency.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import { agentOf, cardToken, type SavedCardRef } from '../payments/service.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { MifiService } from './service.ts';

// The paying calls (rent, confirm, cabinetDisposit) take an Idempotency-Key: the first request runs, a replay gets
// its answer (committed with the payment, lib/idempotency.ts). A payment the customer must finish answers `action`
// (the contract's PaymentAction, as the rental and top-up calls do); the call repeated with paymentIntent resumes it.
export default async function mifiRoutes(
  app: App,
  opts: {
    mifi: MifiService;
    payments: PaymentsService;
    keys: KeyStore;
    clock: Clock;
    /** A saved card of the user and agent, usable with the method paymentId: its provider ref (the wallet's). */
    savedCard: SavedCardRef;
  },
) {
  const tags = ['mifi'];
  const pre = { preHandler: app.requireUser };
  // A saved card (cardId) pays as its provider ref in place of a new card's token.
  const tokenOf = (
    user: { id: number },
    b: { cardId?: string; stripeToken?: string; paymentId: string },
    agent: string | undefined,
  ) => cardToken(opts.savedCard, user.id, b, agent);
  app.post(
    '/chargenow/mifi/query',
    {
      schema: {
        tags,
        summary: 'The catalogue proxy {requestMethod, url, data}',
        body: MifiQueryBody,
        response: { 200: Envelope(MifiQueryResult) },
      },
      ...pre,
    },
    async (req) => ok(await opts.mifi.proxy(currentUser(req), req.body.url, req.body.data, req.locale)),
  );
  app.post(
    '/chargenow/mifi/rent',
    {
      schema: {
        tags,
        summary:
          'Submit and pay a package order (payType mifi; order types 0-3); may answer action, then resumed with paymentIntent',
        headers: IdemHeaders,
        body: MifiRentBody,
        response: { 200: Envelope(MifiOrderResult) },
      },
      ...pre,
    },
    async (req, reply) =>
      idempotent(
        opts.keys,
        opts.clock,
        req,
        reply,
        req.body,
        async () => {
          const user = currentUser(req);
          const agent = await agentOf(opts.payments, req.headers);
          return ok(
            await opts.mifi.rent(user, { ...req.body, stripeToken: await tokenOf(user, req.body, agent) }, agent),
          );
        },
        { committed: (r: MifiOrderResult) => ok(r) },
      ),
  );
  app.post(
    '/chargenow/mifi/coupon',
    {
      schema: {
        tags,
        summary:
          "What a coupon takes off a package price for this rider (nothing reserved: the paying call's couponNo does); 422 when it does not apply",
        body: MifiCouponBody,
        response: { 200: Envelope(MifiCouponResult) },
      },
      ...pre,
    },
    async (req) =>
      ok(await opts.mifi.couponDiscount(currentUser(req), req.body, await agentOf(opts.payments, req.headers))),
  );
  // Continue payment (status 33): the same payment layer and ledger as the order's first try (MifiService.pay).
  app.post(
    '/chargenow/mifi/confirm',
    {
      schema: {
        tags,
        summary: 'Pay an unpaid (33) package order (payType mifi); may answer action, then resumed with paymentIntent',
        headers: IdemHeaders,
        body: MifiConfirmBody,
        response: { 200: Envelope(MifiPackagePaid) },
      },
      ...pre,
    },
    async (req, reply) =>
      idempotent(
        opts.keys,
        opts.clock,
        req,
        reply,
        req.body,
        async () => {
          const user = currentUser(req);
          const b = req.body;
          const p = await opts.mifi.packageOf(user, b.mifiOrderId);
          const agent = await agentOf(opts.payments, req.headers);
          const action = await opts.mifi.pay(
            user,
            p.order_id,
            {
              paymentId: b.paymentId,
              token: await tokenOf(user, b, agent),
              paymentIntent: b.paymentIntent,
              returnUrl: b.returnUrl,
              agent,
              couponNo: b.couponNo,
              useWallet: b.useWallet === 1,
            },
            () => opts.mifi.wire(user, p.id),
          );
          return ok({ ...(await opts.mifi.wire(user, p.id)), ...(action ? { action } : {}) });
        },
        { committed: (w: MifiPackage) => ok(w) },
      ),
  );
  app.post(
    '/chargenow/mifi/orderList',
    {
      schema: {
        tags,
        summary: "The user's packages",
        body: MifiOrderListBody,
        response: { 200: Envelope(MifiOrderPage) },
      },
      ...pre,
    },
    async (req) => ok(await opts.mifi.list(currentUser(req), req.body ?? {})),
  );
  app.get(
    '/chargenow/mifi/package',
    {
      schema: {
        tags,
        summary: 'One package order of the user (the order detail screen: renew, rent again, pay again)',
        querystring: MifiOrderIdQuery,
        response: { 200: Envelope(MifiPackage) },
      },
      ...pre,
    },
    async (req) => ok(await opts.mifi.wire(currentUser(req), req.query.mifiOrderId)),
  );
  app.get(
    '/chargenow/mifi/orderDetail',
    {
      schema: {
        tags,
        summary: 'The Wi-Fi device of a package (or sn): network, battery, signal, packages',
        querystring: MifiOrderDetailQuery,
        response: { 200: Envelope(MifiDevice) },
      },
      ...pre,
    },
    async (req) => ok(await opts.mifi.detail(currentUser(req), req.query)),
  );
  app.get(
    '/chargenow/mifi/checkPickUp',
    {
      schema: {
        tags,
        summary: 'QR pickup poll: 0 waiting, 1 loading, 2 success, 9 failure',
        querystring: MifiOrderIdQuery,
        response: { 200: Envelope(CheckPickUpResult) },
      },
      ...pre,
    },
    async (req) => ok(await opts.mifi.checkPickUp(currentUser(req), req.query.mifiOrderId)),
  );
  app.post(
    '/chargenow/mifi/pickup',
    {
      schema: {
        tags,
        summary: 'Pick up a box at the scanned cabinet for a package',
        body: PickupBody,
        response: { 200: Envelope(OrderIdResult) },
      },
      ...pre,
    },
    async (req) => ok(await opts.mifi.pickup(currentUser(req), req.body.qrcode, req.body.pickOrderId)),
  );
  app.post(
    '/chargenow/mifi/bindSn',
    {
      schema: {
        tags,
        summary: 'Bind a box (sn) to a package',
        body: BindBody,
        response: { 200: Envelope(OrderIdResult) },
      },
      ...pre,
    },
    async (req) => ok(await opts.mifi.bind(currentUser(req), req.body.sn, req.body.mifiOrderId)),
  );
  app.post(
    '/chargenow/mifi/trafficUsage',
    {
      schema: {
        tags,
        summary: 'Traffic of a box between two times (seconds)',
        body: TrafficBody,
        response: { 200: Envelope(TrafficResult) },
      },
      ...pre,
    },
    async (req) =>
      ok(await opts.mifi.traffic(currentUser(req), req.body.sn, req.body.packageStartTime, req.body.packageEndTime)),
  );
  app.post(
    '/chargenow/mifi/flowUsageList',
    {
      schema: {
        tags,
        summary: 'Traffic per package period of a box',
        body: FlowUsageBody,
        response: { 200: Envelope(UsageRecord) },
      },
      ...pre,
    },
    async (req) => ok(await opts.mifi.flowUsage(currentUser(req), req.body.sn)),
  );
  app.post(
    '/chargenow/mifi/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel an unpaid (88) or unused package (3 revoked, refunded → 4)',
        body: CancelBody,
        response: { 200: Envelope(MifiPackage) },
      },
      ...pre,
    },
    async (req) => ok(await opts.mifi.cancel(currentUser(req), req.body.mifiOrderId)),
  );
  app.post(
    '/chargenow/mifi/cabinetDisposit',
    {
      schema: {
        tags,
        summary:
          'Pay the box deposit of a package bought without a device: from the wallet, held by a method that holds, else paid into the wallet and held; may answer action',
        headers: IdemHeaders,
        body: DepositBody,
        response: { 200: Envelope(MifiPackagePaid) },
      },
      ...pre,
    },
    async (req, reply) =>
      idempotent(
        opts.keys,
        opts.clock,
        req,
        reply,
        req.body,
        async () => {
          const user = currentUser(req);
          const action = await opts.mifi.payDeposit(user, req.body, await agentOf(opts.payments, req.headers), () =>
            opts.mifi.wire(user, req.body.mifiOrderId),
          );
          return ok({ ...(await opts.mifi.wire(user, req.body.mifiOrderId)), ...(action ? { action } : {}) });
        },
        { committed: (w: MifiPackage) => ok(w) },
      ),
  );
}
