// The one webhook entry of every payment provider: POST /payments/webhooks/{provider}[/{agent}] serves the card
// provider (Stripe, the sandbox) and every method (PayPal, M-Pesa, Flutterwave, …) alike. The URLs providers were
// configured with before stay as aliases: /webhooks/payments/{id} (card providers) and /webhooks/methods/{id}
// (methods), where {id} is the provider's instance id (`stripe`, `stripe.<agent>`, `flutterwave.<agent>`).
//
// Each delivery is verified the way its provider specifies (a card provider's verifyEvent, a method adapter's
// notification), then read as one of a few actions, handled in one place (apply):
//
//   payment.succeeded / payment.failed / payment.refunded   our payment row is brought up to the provider's state
//                                                            (a method's is read again from the provider first)
//   payout.paid / payout.failed                              the withdrawal it pays is settled (the wallet's)
//   ignored                                                  recorded, nothing to do
//
// Every event id is applied once (payment_provider_events); a provider that lacks the webhook capability, or an
// unknown id, is a 404; a delivery that does not verify is a 400 (the provider retries a 5xx only).
import { Type } from 'typebox';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../lib/route.ts';
import { AppError } from '../../lib/errors.ts';
import type { ExternalMethodProvider } from './methods/external.ts';
import type { ExternalState, Notification } from './methods/adapter.ts';
import { lacks, type PaymentProvider, type ProviderEvent } from './provider.ts';
import type { PaymentsService } from './service.ts';

export type WebhookAction = 'payment.succeeded' | 'payment.failed' | 'payment.refunded' | 'payout.paid' | 'payout.failed' | 'ignored';

/** A card provider's verified event as one of the actions. */
export function cardAction(e: ProviderEvent): WebhookAction {
  if (e.type === 'payout.paid' || e.type === 'payout.failed') return e.type;
  if (e.type === 'charge.refunded') return 'payment.refunded';
  if (e.type === 'payment_intent.payment_failed' || e.type === 'payment_intent.canceled') return 'payment.failed';
  if (/^(payment_intent|charge)\./.test(e.type)) return 'payment.succeeded';
  return 'ignored';
}

/**
 * A method's verified notification as one of the actions: about a payment of ours, or else (a ref we did not start
 * a payment with: PayPal payout item, M-Pesa B2C result, Flutterwave transfer) about a payout.
 */
export function methodAction(n: Pick<Notification, 'ref' | 'state'>, ours: boolean): WebhookAction {
  if (!ours) return n.ref && n.state === 'paid' ? 'payout.paid' : n.ref && n.state === 'failed' ? 'payout.failed' : 'ignored';
  const failed: (ExternalState | undefined)[] = ['failed', 'cancelled'];
  return failed.includes(n.state) ? 'payment.failed' : 'payment.succeeded';
}

export interface WebhookDeps {
  payments: PaymentsService;
  db: Db;
  clock: Clock;
  /** A payout's outcome: the wallet settles the withdrawal it pays, each event once. */
  payoutNotified: (providerId: string, e: ProviderEvent) => Promise<unknown>;
}

type Answer = { status: number; contentType: string; body: string };
const json = (status: number, body: unknown): Answer => ({ status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) });

/** One delivery to provider `id`: verified, read as an action, applied once. */
export async function receive(d: WebhookDeps, id: string, req: { headers: Record<string, string | string[] | undefined>; rawBody: string; query: Record<string, string> }): Promise<Answer> {
  const method = d.payments.allMethodProviders().find((p) => p.id === id);
  const card = method ? undefined : d.payments.providers.has(id) ? d.payments.providers.get(id) : undefined;
  const provider: PaymentProvider | undefined = method ?? card;
  if (!provider || lacks(provider.capabilities, 'verifyEvent')) return json(404, { received: false, result: 'unknown_provider' });
  if (card) {
    const h = (name: string) => (v => (Array.isArray(v) ? v[0] : v))(req.headers[name]);
    const event = card.verifyEvent(req.rawBody, id.startsWith('stripe') ? h('stripe-signature') : h('sandbox-signature'));
    if (!event) return json(400, { received: false, result: 'signature' });
    return json(200, { received: true, result: await apply(d, id, cardAction(event), event) });
  }
  const got = await method!.notification(req);
  if (!got) return json(400, { received: false, result: 'signature' });
  const { n, row } = got;
  const event: ProviderEvent = { id: n.eventId, type: n.state ?? 'notification', data: { ref: n.ref ?? '' } };
  await apply(d, id, methodAction(n, row !== undefined && row !== null), event, method, row ?? undefined);
  return n.ack;
}

/**
 * A card provider's signed delivery made in-process rather than POSTed (the sandbox's payout arrivals, a job): the
 * same verification and actions as the entry. Throws when it does not verify, or when it is about a payout not
 * stored yet, so that its job delivers it again.
 */
export async function deliver(d: WebhookDeps, providerId: string, raw: string, signature: string): Promise<string> {
  const card = d.payments.providers.has(providerId) ? d.payments.providers.get(providerId) : undefined;
  const event = card && !lacks(card.capabilities, 'verifyEvent') ? card.verifyEvent(raw, signature) : null;
  if (!event) throw new AppError(400, 'error.webhook.signature');
  return apply(d, providerId, cardAction(event), event);
}

/** The actions, in one place. */
async function apply(
  d: WebhookDeps, providerId: string, action: WebhookAction, e: ProviderEvent,
  method?: ExternalMethodProvider, row?: Parameters<ExternalMethodProvider['refresh']>[0],
): Promise<string> {
  switch (action) {
    case 'payout.paid':
    case 'payout.failed':
      return String(await d.payoutNotified(providerId, { ...e, type: action }));
    case 'payment.succeeded':
    case 'payment.failed':
    case 'payment.refunded':
      if (method && row) {
        // The provider's own answer to our status call is what we record, never the notification's word alone.
        // Asked before the event is stored: if this fails (or the process dies), the redelivery asks again; a
        // payment we had released but the customer paid anyway is given back (settleLate).
        await method.settleLate(await method.refresh(row));
        return (await d.payments.recordEvent(providerId, e, d.clock.now())) ? 'applied' : 'duplicate';
      }
      return d.db.tx(async () => {
        if (!(await d.payments.recordEvent(providerId, e, d.clock.now()))) return 'duplicate';
        return d.payments.applyPaymentEvent(providerId, e);
      });
    case 'ignored':
      return (await d.payments.recordEvent(providerId, e, d.clock.now())) ? 'ignored' : 'duplicate';
  }
}

const Provider = Type.String({ maxLength: 60 });

/** The webhook entry and its aliases (outside the app API: each provider's own wire format). */
export async function paymentWebhookRoutes(app: App, d: WebhookDeps) {
  // Signatures are over the bytes received: every content type is kept as a string.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  const strings = (o: unknown) => Object.fromEntries(Object.entries((o ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === 'string').slice(0, 30)) as Record<string, string>;
  const routes: [string, string, (p: Record<string, string>) => string][] = [
    ['/payments/webhooks/:provider', 'Every payment provider\u2019s notifications (card provider and methods): verified as each provider specifies, each event applied once', (p) => p.provider!],
    ['/payments/webhooks/:provider/:agent', 'The same, for an agent\u2019s own account at the provider', (p) => `${p.provider}.${p.agent}`],
    ['/webhooks/payments/:provider', 'Alias of /payments/webhooks/{provider} (the card provider\u2019s configured URL)', (p) => p.provider!],
    ['/webhooks/methods/:provider', 'Alias of /payments/webhooks/{provider} (the methods\u2019 configured URL)', (p) => p.provider!],
  ];
  for (const [url, summary, idOf] of routes) {
    const params = url.includes(':agent') ? Type.Object({ provider: Provider, agent: Type.String({ maxLength: 40 }) }) : Type.Object({ provider: Provider });
    app.post(url, { schema: { tags: ['webhooks'], summary, params } }, async (req, reply) => {
      const rawBody = typeof req.body === 'string' ? req.body : '';
      const a = await receive(d, idOf(req.params as Record<string, string>), { headers: req.headers, rawBody, query: strings(req.query) });
      return reply.status(a.status).type(a.contentType).send(a.body);
    });
  }
}
