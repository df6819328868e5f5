// The payment providers, put together for buildApp (app.ts): the sandbox card provider (test mode only), Stripe's
// accounts (the platform's, and each agent's own or connected one: docs/payments.md), and the methods beyond the
// card (methods/registry.ts), registered beside them and offered per agent.
import type { AppDeps } from './app-deps.ts';
import type { Db } from './db/db.ts';
import type { Clock } from './lib/clock.ts';
import type { Logger } from './modules/cabinets/link.ts';
import { DEFAULT_AGENT } from './modules/ledger/repository.ts';
import type { HttpLog } from './modules/payments/methods/http.ts';
import { ExternalRepository } from './modules/payments/methods/repository.ts';
import { ProviderRegistry } from './modules/payments/provider.ts';
import { PaymentsRepository, SandboxAcquirerRepository } from './modules/payments/repository.ts';
import { SandboxCardProvider, sandboxSavedCards } from './modules/payments/sandbox.ts';
import { liveMethods } from './modules/payments/settings/live.ts';
import { StripeCardProvider, type StripeAccount } from './modules/payments/stripe.ts';

export async function paymentProviders(o: {
  deps: AppDeps;
  db: Db;
  clock: Clock;
  log: Logger & HttpLog;
  sandboxOn: boolean;
}) {
  const { deps, db, clock, log, sandboxOn } = o;
  const sandbox = deps.sandbox ?? new SandboxCardProvider(db, clock);
  // The sandbox card provider only with SANDBOX=on (its webhook secret this installation's, never a constant).
  const providers = new ProviderRegistry(DEFAULT_AGENT);
  if (sandboxOn) providers.register(await sandbox.init().then(() => sandbox));
  const paymentsRepo = new PaymentsRepository(db);
  // Stripe: the platform's account, and each agent's own account or connected account (docs/payments.md).
  providers.setCardProvider(DEFAULT_AGENT, deps.stripe ? 'stripe' : 'sandbox');
  if (deps.stripe) {
    const s = deps.stripe;
    providers.register(new StripeCardProvider('stripe', s.account, paymentsRepo, s.transport));
    for (const [agent, a] of Object.entries(s.agents)) {
      const id = `stripe.${agent}`;
      const account: StripeAccount = a.secretKey
        ? { secretKey: a.secretKey, publishableKey: a.publishableKey ?? '', webhookSecret: a.webhookSecret ?? '' }
        : {
            ...s.account,
            connectedAccount: a.connectedAccount,
            webhookSecret: a.webhookSecret ?? s.account.webhookSecret,
          };
      providers.register(new StripeCardProvider(id, account, paymentsRepo, s.transport));
      providers.setCardProvider(agent, id);
    }
  }
  // The methods beyond the card (methods/registry.ts): registered beside the card providers, offered per agent;
  // PAYMENT_METHODS with the console's settings over it, picked up without a restart (payments/settings/live.ts).
  const externalRepo = new ExternalRepository(db);
  const acquirer = new SandboxAcquirerRepository(db);
  const methods = await liveMethods({
    env: deps.paymentMethods ?? {},
    db,
    settingsKey: deps.paymentSettingsKey,
    providers,
    clock,
    warn: (msg) => log.warn(msg),
    build: {
      repo: externalRepo,
      clock,
      publicUrl: deps.publicUrl ?? '',
      sandbox: sandboxOn,
      platformAgent: DEFAULT_AGENT,
      fetch: deps.methodFetch,
      log,
      cardOutcome: async (token) => (await acquirer.useToken(token, clock.now()))?.outcome,
      customers: paymentsRepo,
      // A method's saved card in test mode is a saved card of the sandbox card provider (its test card decides).
      sandboxCards: sandboxSavedCards(acquirer, clock),
    },
  });
  return { sandbox, providers, paymentsRepo, externalRepo, methods };
}
