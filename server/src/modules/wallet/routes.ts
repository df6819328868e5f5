import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import {
  CardConfirmBody,
  CardConfirmResult,
  CardRemoveParams,
  CardSaveQuery,
  CardSetup,
  CardsQuery,
  CardTokenSaveBody,
  MovementPage,
  MovementsQuery,
  RechargeBody,
  RechargeResult,
  SavedCard,
  Wallet,
  WithdrawApplyBody,
  WithdrawApplyResult,
  WithdrawCreateBody,
  WithdrawCreateResult,
} from '#contract/wallet.ts';
import { toMajor } from '#core/money.ts';
import type { Clock } from '../../lib/clock.ts';
import { ok } from '../../lib/envelope.ts';
import { IdemHeadersRequired, idempotent, type KeyStore } from '../../lib/idempotency.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import { currencySymbol } from '../venues/service.ts';
import type { TopUpResult, WalletService, WithdrawalResult } from './service.ts';

const topUpBody = (r: TopUpResult & { action?: { clientSecret: string; paymentIntent: string } }) =>
  ok({
    outTradeNo: r.outTradeNo,
    pBalance: toMajor(r.balance, r.currency),
    pCurrencyType: r.currency,
    ...(r.action ? { action: r.action } : {}),
  });
const withdrawalBody = (r: WithdrawalResult) =>
  ok({ tixianOrderId: r.tixianOrderId, pBalance: toMajor(r.balance, r.currency), status: r.status });

export default async function walletRoutes(app: App, opts: { wallet: WalletService; keys: KeyStore; clock: Clock }) {
  const funds = opts.wallet;
  const wire = (w: { currency: string; agent: string; balance: number; held: number }) => ({
    pBalance: toMajor(w.balance, w.currency),
    pCurrencySymbol: currencySymbol(w.currency),
    pCurrencyType: w.currency,
    pDepositAmount: toMajor(w.held, w.currency),
    pDailiId: w.agent,
  });

  app.get(
    '/cdb/user/wallet/new',
    {
      schema: {
        tags: ['wallet'],
        summary: "The user's wallets, one per currency and agent",
        response: { 200: Envelope(Type.Array(Wallet)) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const u = currentUser(req);
      return ok((await opts.wallet.wallets(u.id, u.currency)).map(wire));
    },
  );

  app.post(
    '/cdb/payment/multicurrency/recharge',
    {
      schema: {
        tags: ['wallet'],
        summary: 'Top up a wallet (payType CZ): charge the card through the payment provider and credit the wallet',
        headers: IdemHeadersRequired,
        body: RechargeBody,
        response: { 200: Envelope(RechargeResult) },
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
        async () => {
          const key = req.headers['idempotency-key'];
          return topUpBody(await funds.topUp(currentUser(req), { ...req.body, key }));
        },
        { committed: topUpBody },
      ),
  );

  app.post(
    '/cdb/mine/tixian/apply',
    {
      schema: {
        tags: ['wallet'],
        summary:
          'Start a withdrawal: checks the amount against the balance and returns the refund types and payout channels',
        body: WithdrawApplyBody,
        response: { 200: Envelope(WithdrawApplyResult) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(await funds.withdrawals.apply(currentUser(req), req.body)),
  );

  app.post(
    '/cdb/mine/tixian/create',
    {
      schema: {
        tags: ['wallet'],
        summary:
          'Request a withdrawal: the amount is held from the balance until the payout is confirmed (posted) or rejected (released)',
        headers: IdemHeadersRequired,
        body: WithdrawCreateBody,
        response: { 200: Envelope(WithdrawCreateResult) },
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
        async () => {
          return withdrawalBody(
            await funds.withdrawals.create(currentUser(req), { ...req.body, key: req.headers['idempotency-key'] }),
          );
        },
        { committed: withdrawalBody },
      ),
  );

  app.get(
    '/cdb/user/wallet/list',
    {
      schema: {
        tags: ['wallet'],
        summary: "A wallet's movements (top-ups, deposits, rent, withdrawals), newest first",
        querystring: MovementsQuery,
        response: { 200: Envelope(MovementPage) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const r = await funds.movements(currentUser(req), req.query);
      return ok({ page: { records: r.records, total: r.total, current: req.query.page, size: req.query.pageSize } });
    },
  );

  app.get(
    '/cdb/user/card',
    {
      schema: {
        tags: ['wallet'],
        summary: "The user's saved cards for an agent",
        querystring: CardsQuery,
        response: { 200: Envelope(Type.Array(SavedCard)) },
      },
      preHandler: app.requireUser,
    },
    async (req) =>
      ok(
        (await funds.cards(currentUser(req).id, req.query.agentId)).map((c) => ({
          pId: c.id,
          pCardnumber: `**** **** **** ${c.last4}`,
          currencyName: c.currency,
          brand: c.brand,
          paymentId: c.method_id,
        })),
      ),
  );

  app.post(
    '/cdb/user/card/save',
    {
      schema: {
        tags: ['wallet'],
        summary:
          'Start saving a card with the chosen payment method (SetupIntent-like): returns the setup id and client secret',
        querystring: CardSaveQuery,
        response: { 200: Envelope(CardSetup) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const u = currentUser(req);
      return ok(
        await funds.startCardSetup(u, {
          paymentId: req.query.paymentId,
          agentId: req.query.agentId,
          currency: req.query.currency ?? u.currency,
        }),
      );
    },
  );

  app.post(
    '/cdb/user/card/confirm',
    {
      schema: {
        tags: ['wallet'],
        summary: 'Confirm a card setup with a card token: the card is saved',
        headers: IdemHeadersRequired,
        body: CardConfirmBody,
        response: { 200: Envelope(CardConfirmResult) },
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
        async () => ok(await funds.confirmCardSetup(currentUser(req), req.body)),
        { committed: (r: { pId: string }) => ok(r) },
      ),
  );

  app.post(
    '/cdb/user/card/saveToken',
    {
      schema: {
        tags: ['wallet'],
        summary:
          "Save the card of a method's own card SDK token (Mercado Pago's card save {paymentId, token, paymentMethodId, issuerId}) on the user's customer at the provider; listed with the saved cards",
        headers: IdemHeadersRequired,
        body: CardTokenSaveBody,
        response: { 200: Envelope(CardConfirmResult) },
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
        async () => {
          const h = req.headers.agentopenid;
          return ok(
            await funds.saveMethodCard(currentUser(req), {
              ...req.body,
              agentHeader: typeof h === 'string' ? h : undefined,
            }),
          );
        },
        { committed: (r: { pId: string }) => ok(r) },
      ),
  );

  app.get(
    '/cdb/user/card/remove/:cardId',
    {
      schema: {
        tags: ['wallet'],
        summary: 'Delete a saved card',
        params: CardRemoveParams,
        response: { 200: Envelope(Type.Null()) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      await funds.removeCard(currentUser(req), req.params.cardId);
      return ok(null);
    },
  );
}
