// The rider's view of a cancelled rental's deposit and the choice to keep a top-up in the wallet (deposit-returns.ts).
import { Envelope } from '#contract/envelope.ts';
import { OrderIdBody, OrderIdQuery } from '#contract/rentals.ts';
import { DepositBack } from '#contract/returns.ts';
import { toMajor } from '#core/money.ts';
import { ok } from '../../lib/envelope.ts';
import { conflict } from '../../lib/errors.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { UserRow } from '../auth/service.ts';
import type { DepositReturns, DepositBack as Back } from './deposit-returns.ts';
import { Zujie } from './order-state.ts';
import type { RentalsService } from './service.ts';

const wire = (b: Back) => ({ ...b, amount: toMajor(b.amount, b.currency), refunded: toMajor(b.refunded, b.currency) });

export default async function depositRoutes(app: App, opts: { rentals: RentalsService; deposits: DepositReturns }) {
  /** The rider's own cancelled order (another's: 404; one that started: 409). */
  const cancelledOrder = async (user: UserRow, orderId: string) => {
    const order = await opts.rentals.check(user, orderId);
    if (order.zujie !== Zujie.cancelled) throw conflict('error.deposit.notCancelled');
    return order;
  };

  app.get(
    '/cdb/mine/order/deposit',
    {
      schema: {
        tags: ['rentals'],
        summary:
          "What became of a cancelled rental's deposit: a card hold voided, a top-up refunded to its card or method (or kept in the wallet), or the wallet's hold released",
        querystring: OrderIdQuery,
        response: { 200: Envelope(DepositBack) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(wire(await opts.deposits.of(await cancelledOrder(currentUser(req), req.query.orderId)))),
  );

  app.post(
    '/cdb/mine/order/deposit/keep',
    {
      schema: {
        tags: ['rentals'],
        summary:
          "Keep a cancelled rental's deposit top-up in the wallet instead of the scheduled refund (409 once the refund was made)",
        body: OrderIdBody,
        response: { 200: Envelope(DepositBack) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const order = await cancelledOrder(currentUser(req), req.body.orderId);
      await opts.deposits.keep(order);
      return ok(wire(await opts.deposits.of(order)));
    },
  );
}
