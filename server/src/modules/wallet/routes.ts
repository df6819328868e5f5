import { Type } from 'typebox';
import { toMajor } from '../../../../src/core/money.ts';
import type { Clock } from '../../lib/clock.ts';
import { Envelope, ok } from '../../lib/envelope.ts';
import { IdemHeadersRequired, idempotent, type KeyStore } from '../../lib/idempotency.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import { currencySymbol } from '../venues/service.ts';
import type { WalletService } from './service.ts';

const Wallet = Type.Object({
  pBalance: Type.Number({ description: 'available balance, major units' }),
  pCurrencySymbol: Type.String(),
  pCurrencyType: Type.String(),
  pDepositAmount: Type.Number({ description: 'deposit currently held, major units' }),
  pDailiId: Type.String({ description: 'agent id: wallets, payment methods and cards are scoped by it' }),
});

const Amount = Type.String({ minLength: 1, maxLength: 20, description: 'major units, e.g. "10" or "10.50"' });
const Currency = Type.String({ minLength: 3, maxLength: 3 });
const AgentId = Type.Optional(Type.String({ maxLength: 64, description: "pDailiId; default the platform's own" }));

const PayoutChannel = Type.Object({
  channelName: Type.String(),
  paymentId: Type.String(),
  payoutConfig: Type.Array(Type.Object({
    fieldName: Type.String(),
    fieldType: Type.Union([Type.Literal('picker'), Type.Literal('input')]),
    fieldDefauldValues: Type.Array(Type.Object({ desc: Type.String(), value: Type.String() })),
  })),
});

const Card = Type.Object({ pId: Type.String(), pCardnumber: Type.String(), currencyName: Type.String(), brand: Type.String() });

export default async function walletRoutes(app: App, opts: { wallet: WalletService; keys: KeyStore; clock: Clock }) {
  const funds = opts.wallet;
  const wire = (w: { currency: string; agent: string; balance: number; held: number }) => ({
    pBalance: toMajor(w.balance, w.currency),
    pCurrencySymbol: currencySymbol(w.currency),
    pCurrencyType: w.currency,
    pDepositAmount: toMajor(w.held, w.currency),
    pDailiId: w.agent,
  });

  app.get('/cdb/user/wallet/new', {
    schema: { tags: ['wallet'], summary: "The user's wallets, one per currency and agent", response: { 200: Envelope(Type.Array(Wallet)) } },
    preHandler: app.requireUser,
  }, async (req) => {
    const u = currentUser(req);
    return ok((await opts.wallet.wallets(u.id, u.currency)).map(wire));
  });

  app.post('/cdb/payment/multicurrency/recharge', {
    schema: {
      tags: ['wallet'],
      summary: 'Top up a wallet (payType CZ): charge the card through the payment provider and credit the wallet',
      headers: IdemHeadersRequired,
      body: Type.Object({
        amount: Amount, currency: Currency, agentId: AgentId,
        paymentId: Type.String({ minLength: 1, maxLength: 100, description: 'pId of the payment method' }),
        stripeToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'single-use card token' })),
        cardId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'a saved card (pId) instead of a token' })),
      }),
      response: { 200: Envelope(Type.Object({ outTradeNo: Type.String(), pBalance: Type.Number(), pCurrencyType: Type.String() })) },
    },
    preHandler: app.requireUser,
  }, async (req, reply) => idempotent(opts.keys, opts.clock, req, reply, req.body, async () => {
    const key = req.headers['idempotency-key'];
    const r = await funds.topUp(currentUser(req), { ...req.body, key });
    return ok({ outTradeNo: r.outTradeNo, pBalance: toMajor(r.balance, r.currency), pCurrencyType: r.currency });
  }));

  app.post('/cdb/mine/tixian/apply', {
    schema: {
      tags: ['wallet'],
      summary: 'Start a withdrawal: checks the amount against the balance and returns the refund types and payout channels',
      body: Type.Object({ amount: Amount, currency: Currency, agentId: AgentId }),
      response: {
        200: Envelope(Type.Object({
          refundTypes: Type.Array(Type.Integer(), { description: '0 back to the top-up card (auto-audit), 1 payout channel, 2 manual bank transfer; empty: no withdrawal support' }),
          checkNeedRemark: Type.Boolean(),
          channels: Type.Array(PayoutChannel),
        })),
      },
    },
    preHandler: app.requireUser,
  }, async (req) => ok(await funds.apply(currentUser(req), req.body)));

  app.post('/cdb/mine/tixian/create', {
    schema: {
      tags: ['wallet'],
      summary: 'Request a withdrawal: the amount is held from the balance until the payout is confirmed (posted) or rejected (released)',
      headers: IdemHeadersRequired,
      body: Type.Object({
        refundType: Type.Integer({ minimum: 0, maximum: 9 }),
        amount: Amount,
        amountType: Type.Optional(Type.Literal('balance')),
        currency: Currency,
        agentId: AgentId,
        checkNeedRemark: Type.Optional(Type.Boolean()),
        remark: Type.Optional(Type.String({ maxLength: 500, description: 'JSON {name, bankCard, phone} when checkNeedRemark' })),
        autoAudit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
        receiverAccount: Type.Optional(Type.String({ maxLength: 2000, description: 'JSON {paymentId, accountData{fieldName: value}}' })),
      }),
      response: { 200: Envelope(Type.Object({ tixianOrderId: Type.String(), pBalance: Type.Number(), status: Type.String() })) },
    },
    preHandler: app.requireUser,
  }, async (req, reply) => idempotent(opts.keys, opts.clock, req, reply, req.body, async () => {
    const r = await funds.create(currentUser(req), { ...req.body, key: req.headers['idempotency-key'] });
    return ok({ tixianOrderId: r.tixianOrderId, pBalance: toMajor(r.balance, r.currency), status: r.status });
  }));

  app.get('/cdb/user/wallet/list', {
    schema: {
      tags: ['wallet'],
      summary: "A wallet's movements (top-ups, deposits, rent, withdrawals), newest first",
      querystring: Type.Object({
        currency: Type.Optional(Currency), agentId: AgentId,
        page: Type.Integer({ minimum: 1, default: 1 }), pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
      }),
      response: {
        200: Envelope(Type.Object({ page: Type.Object({
          records: Type.Array(Type.Object({
            id: Type.String(), type: Type.String(), orderId: Type.String(), amount: Type.Number(), currency: Type.String(),
            pDailiId: Type.String(), status: Type.String(), createdAt: Type.String(),
          })),
          total: Type.Integer(), current: Type.Integer(), size: Type.Integer(),
        }) })),
      },
    },
    preHandler: app.requireUser,
  }, async (req) => {
    const r = await funds.movements(currentUser(req), req.query);
    return ok({ page: { records: r.records, total: r.total, current: req.query.page, size: req.query.pageSize } });
  });

  app.get('/cdb/user/card', {
    schema: {
      tags: ['wallet'],
      summary: "The user's saved cards for an agent",
      querystring: Type.Object({ userEnd: Type.Optional(Type.String({ maxLength: 10 })), agentId: AgentId, qrcode: Type.Optional(Type.String({ maxLength: 500 })) }),
      response: { 200: Envelope(Type.Array(Card)) },
    },
    preHandler: app.requireUser,
  }, async (req) => ok((await funds.cards(currentUser(req).id, req.query.agentId)).map((c) => ({
    pId: c.id, pCardnumber: `**** **** **** ${c.last4}`, currencyName: c.currency, brand: c.brand,
  }))));

  app.post('/cdb/user/card/save', {
    schema: {
      tags: ['wallet'],
      summary: 'Start saving a card with the chosen payment method (SetupIntent-like): returns the setup id and client secret',
      querystring: Type.Object({ paymentId: Type.String({ minLength: 1, maxLength: 100 }), agentId: AgentId, currency: Type.Optional(Currency) }),
      response: { 200: Envelope(Type.Object({ clientSecret: Type.String(), paymentId: Type.String() })) },
    },
    preHandler: app.requireUser,
  }, async (req) => {
    const u = currentUser(req);
    return ok(await funds.startCardSetup(u, { paymentId: req.query.paymentId, agentId: req.query.agentId, currency: req.query.currency ?? u.currency }));
  });

  app.post('/cdb/user/card/confirm', {
    schema: {
      tags: ['wallet'],
      summary: 'Confirm a card setup with a card token: the card is saved',
      headers: IdemHeadersRequired,
      body: Type.Object({
        paymentId: Type.String({ minLength: 1, maxLength: 100, description: 'the setup id from card/save' }),
        paymentMethod: Type.String({ minLength: 1, maxLength: 200, description: 'single-use card token' }),
        clientSecret: Type.String({ minLength: 1, maxLength: 200 }),
      }),
      response: { 200: Envelope(Type.Object({ pId: Type.String() })) },
    },
    preHandler: app.requireUser,
  }, async (req, reply) => idempotent(opts.keys, opts.clock, req, reply, req.body, async () =>
    ok(await funds.confirmCardSetup(currentUser(req), req.body))));

  app.get('/cdb/user/card/remove/:cardId', {
    schema: {
      tags: ['wallet'],
      summary: 'Delete a saved card',
      params: Type.Object({ cardId: Type.String({ minLength: 1, maxLength: 100 }) }),
      response: { 200: Envelope(Type.Null()) },
    },
    preHandler: app.requireUser,
  }, async (req) => {
    await funds.removeCard(currentUser(req), req.params.cardId);
    return ok(null);
  });
}

/** Provider webhooks (outside the app API): raw body kept for the signature check. */
export async function webhookRoutes(app: App, opts: { wallet: WalletService }) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/:provider', {
    schema: {
      tags: ['webhooks'],
      summary: 'Payment provider events (payout.paid, payout.failed); signature-verified, each event id applied once',
      params: Type.Object({ provider: Type.String({ maxLength: 40 }) }),
      headers: Type.Object({ 'sandbox-signature': Type.Optional(Type.String({ maxLength: 300 })) }),
      response: { 200: Type.Object({ received: Type.Boolean(), result: Type.String() }) },
    },
  }, async (req) => {
    const result = await opts.wallet.providerEvent(req.params.provider, String(req.body), req.headers['sandbox-signature']);
    return { received: true, result };
  });
}
