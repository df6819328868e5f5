// The one webhook entry of every payment provider: POST /payments/webhooks/{provider}[/{agent}] serves the card
// provider (Stripe, the sandbox) and every method (PayPal, M-Pesa, Flutterwave, …) alike. The URLs providers were
// configured with before stay as aliases: /webhooks/payments/{id} (card providers) and /webhooks/methods/{id}
// (methods), where {id} is the provider's instance id (`stripe`, `stripe.<agent>`, `flutterwave.<agent>`).
//
// Each delivery is read by its provider's notification() (provider.ts: a card provider checks its signature, a method
// verifies its notification and asks its provider again for the payment's state) as one of a few actions, handled
// in one place (apply):
//
//   payment.succeeded / payment.failed / payment.refunded   our payment row is brought up to the provider's state
//                                                            (a method's own rows already are: only recorded)
//   payout.paid / payout.failed                              the withdrawal it pays is settled (the wallet's)
//   ignored                                                  recorded, nothing to do
//
// Every event id is applied once (payment_provider_events); a provider that lacks the webhook capability, or an
// unknown id, is a 404; a delivery that does not verify is a 400 (the provider retries a 5xx only). Every registered
// provider is reached, also a method switched off in the console: late notifications of its payments still apply.
import { Type } from 'typebox';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../lib/route.ts';
import { AppError } from '../../lib/errors.ts';
import {
  cardAction,
  lacks,
  type ProviderEvent,
  type WebhookAnswer,
  type WebhookDelivery,
  type WebhookRequest,
} from './provider.ts';
import type { PaymentsService } from './service.ts';

export { cardAction, type WebhookAction } from './provider.ts';
export { methodAction } from './methods/external.ts';

export interface WebhookDeps {
  payments: PaymentsService;
  db: Db;
  clock: Clock;
  /** A payout's outcome: the wallet settles the withdrawal it pays, each event once. */
  payoutNotified: (providerId: string, e: ProviderEvent) => Promise<unknown>;
}

const json = (status: number, body: unknown): WebhookAnswer => ({
  status,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
});

/** One delivery to provider `id`: read by the provider (verified, as one of the actions), applied once. */
export async function receive(d: WebhookDeps, id: string, req: WebhookRequest): Promise<WebhookAnswer> {
  const provider = d.payments.providers.has(id) ? d.payments.providers.get(id) : undefined;
  if (!provider || lacks(provider.capabilities, 'notification'))
    return json(404, { received: false, result: 'unknown_provider' });
  const delivery = await provider.notification(req);
  if (!delivery) return json(400, { received: false, result: 'signature' });
  const result = await apply(d, id, delivery);
  return delivery.ack ?? json(200, { received: true, result });
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
  return apply(d, providerId, { action: cardAction(event), event });
}

/** The actions, in one place. */
async function apply(
  d: WebhookDeps,
  providerId: string,
  { action, event: e, applied }: WebhookDelivery,
): Promise<string> {
  const record = () => d.payments.recordEvent(providerId, e, d.clock.now());
  switch (action) {
    case 'payout.paid':
    case 'payout.failed':
      return String(await d.payoutNotified(providerId, { ...e, type: action }));
    case 'payment.succeeded':
    case 'payment.failed':
    case 'payment.refunded':
      // A method's payment was read again from its provider (notification()): the event is only recorded.
      if (applied) return (await record()) ? 'applied' : 'duplicate';
      return d.db.tx(async () => {
        if (!(await record())) return 'duplicate';
        return d.payments.applyPaymentEvent(providerId, e);
      });
    case 'ignored':
      return (await record()) ? 'ignored' : 'duplicate';
  }
}

const Provider = Type.String({ maxLength: 60 });

/** The webhook entry and its aliases (outside the app API: each provider's own wire format). */
export async function paymentWebhookRoutes(app: App, d: WebhookDeps) {
  // Signatures are over the bytes received: every content type is kept as a string.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  const strings = (o: unknown) =>
    Object.fromEntries(
      Object.entries((o ?? {}) as Record<string, unknown>)
        .filter(([, v]) => typeof v === 'string')
        .slice(0, 30),
    ) as Record<string, string>;
  const routes: [string, string, (p: Record<string, string>) => string][] = [
    [
      '/payments/webhooks/:provider',
      'Every payment provider\u2019s notifications (card provider and methods): verified as each provider specifies, each event applied once',
      (p) => p.provider!,
    ],
    [
      '/payments/webhooks/:provider/:agent',
      'The same, for an agent\u2019s own account at the provider',
      (p) => `${p.provider}.${p.agent}`,
    ],
    [
      '/webhooks/payments/:provider',
      'Alias of /payments/webhooks/{provider} (the card provider\u2019s configured URL)',
      (p) => p.provider!,
    ],
    [
      '/webhooks/methods/:provider',
      'Alias of /payments/webhooks/{provider} (the methods\u2019 configured URL)',
      (p) => p.provider!,
    ],
  ];
  for (const [url, summary, idOf] of routes) {
    const params = url.includes(':agent')
      ? Type.Object({ provider: Provider, agent: Type.String({ maxLength: 40 }) })
      : Type.Object({ provider: Provider });
    app.post(url, { schema: { tags: ['webhooks'], summary, params } }, async (req, reply) => {
      const rawBody = typeof req.body === 'string' ? req.body : '';
      const a = await receive(d, idOf(req.params as Record<string, string>), {
        headers: req.headers,
        rawBody,
        query: strings(req.query),
      });
      return reply.status(a.status).type(a.contentType).send(a.body);
    });
  }
}
