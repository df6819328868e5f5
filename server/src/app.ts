// buildApp(deps): the whole HTTP application over injected side effects (database, clock, cabinet link,
// payment providers, optional simulator). Load order as in fastify/demo: external plugins → app plugins → routes.
import healthRoutes from './health.ts';
import Fastify from 'fastify';
import compress from '@fastify/compress';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { platformRules, Retention } from './jobs/retention.ts';
import { JobRunner } from './jobs/runner.ts';
import { API_PREFIX } from './lib/route.ts';
import { AuthRepository, SignInRepository } from './modules/auth/repository.ts';
import authRoutes from './modules/auth/routes.ts';
import { AuthService } from './modules/auth/service.ts';
import { Liveness } from './modules/cabinets/liveness.ts';
import { CabinetsRepository } from './modules/cabinets/repository.ts';
import cabinetRoutes from './modules/cabinets/routes.ts';
import { CabinetCredentialsRepository } from './modules/cabinets/credentials-repository.ts';
import a8RegistrationRoutes from './modules/cabinets/vendors/a8/registration.ts';
import { CabinetsService, ReturnReservations } from './modules/cabinets/service.ts';
import { ScanCache } from './modules/cabinets/scan-cache.ts';
import demoRoutes from './demo/routes.ts';
import { EmbedCodesRepository, EmbedRepository } from './modules/embed/repository.ts';
import embedRoutes from './modules/embed/routes.ts';
import { EmbedService } from './modules/embed/service.ts';
import { ProviderRegistry } from './modules/payments/provider.ts';
import { SandboxBankRail } from './modules/payments/payouts/sandbox.ts';
import { PaymentsRepository, SandboxAcquirerRepository } from './modules/payments/repository.ts';
import paymentRoutes from './modules/payments/routes.ts';
import { SandboxCardProvider, sandboxSavedCards } from './modules/payments/sandbox.ts';
import { StripeCardProvider, type StripeAccount } from './modules/payments/stripe.ts';
import { DEFAULT_AGENT } from './modules/ledger/repository.ts';
import sandboxRoutes from './modules/payments/sandbox-routes.ts';
import { ExternalRepository } from './modules/payments/methods/repository.ts';
import { liveMethods } from './modules/payments/settings/live.ts';
import { methodReturnRoutes, payerRoutes, sandboxCheckoutRoutes } from './modules/payments/methods/routes.ts';
import { PaymentsService } from './modules/payments/service.ts';
import { RentalsRepository } from './modules/rentals/repository.ts';
import rentalRoutes from './modules/rentals/routes.ts';
import depositRoutes from './modules/rentals/deposit-routes.ts';
import claimRoutes from './modules/rentals/claim-routes.ts';
import { ClaimsService, GraceService } from './modules/rentals/claims.ts';
import { ReturnEvidenceRepository } from './modules/cabinets/evidence-repository.ts';
import { DepositReturns } from './modules/rentals/deposit-returns.ts';
import { compensationsOf } from './modules/payments/compensation.ts';
import { noticeServices } from './notices.ts';
import noticeRoutes from './modules/notify/notice-routes.ts';
import mifiRoutes from './modules/mifi/routes.ts';
import { MifiRepository } from './modules/mifi/repository.ts';
import { MifiCatalogueRepository } from './modules/mifi/catalogue-repository.ts';
import { MifiBoxesRepository } from './modules/mifi/boxes-repository.ts';
import { MifiService } from './modules/mifi/service.ts';
import { ORDER_RULES, RentalsService } from './modules/rentals/service.ts';
import { PartnersRepository } from './modules/partners/repository.ts';
import { PartnersService } from './modules/partners/service.ts';
import { AlertsRepository } from './modules/alerts/repository.ts';
import { AlertsService } from './modules/alerts/service.ts';
import { DashboardService } from './modules/dashboard/service.ts';
import { reconciliationOf } from './modules/payments/reconciliation.ts';
import { VenuesRepository } from './modules/venues/repository.ts';
import { VenuesService } from './modules/venues/service.ts';
import { fleetServices } from './fleet.ts';
import { cabinetSecretsKey } from './modules/cabinets/token-secrets.ts';
import venueRoutes from './modules/venues/routes.ts';
import walletRoutes from './modules/wallet/routes.ts';
import { deliver, paymentWebhookRoutes, type WebhookDeps } from './modules/payments/webhooks.ts';
import { WalletRepository } from './modules/wallet/repository.ts';
import { WalletService } from './modules/wallet/service.ts';
import { IdempotencyStore } from './idempotency/repository.ts';
import { SecretsRepository } from './secrets/repository.ts';
import { LedgerRepository } from './modules/ledger/repository.ts';
import { LedgerService } from './modules/ledger/service.ts';
import { LiveRepository } from './modules/live/repository.ts';
import liveRoutes from './modules/live/routes.ts';
import { LiveService } from './modules/live/service.ts';
import context from './plugins/context.ts';
import inputHygiene from './plugins/input.ts';
import rateLimits from './plugins/rate-limit.ts';
import securityHeaders from './plugins/security.ts';
import errors from './plugins/errors.ts';
import validation from './plugins/validation.ts';
import { riderDocument } from './lib/openapi.ts';
import { ContentRepository } from './modules/content/repository.ts';
import contentRoutes, { leadRoutes } from './modules/content/routes.ts';
import { ContentService } from './modules/content/service.ts';
import { SandboxWeChat } from './modules/content/wechat.ts';
import { InvoiceService } from './modules/notify/invoice.ts';
import { OutboxMailer } from './modules/notify/mailer.ts';
import { NotifyRepository } from './modules/notify/repository.ts';
import invoiceRoutes from './modules/notify/routes.ts';
import { SandboxIssuer } from './modules/auth/sandbox-issuer.ts';
import sandboxSignInRoutes from './modules/auth/sandbox-routes.ts';
import { signInAdapters } from './modules/auth/signin-config.ts';
import signInRoutes from './modules/auth/signin-routes.ts';
import { SignInService } from './modules/auth/signin.ts';
import { AuditRepository } from './modules/audit/repository.ts';
import { AuditService } from './modules/audit/service.ts';
import { Passkeys } from './modules/staff/passkeys.ts';
import { StaffRepository } from './modules/staff/repository.ts';
import { injectFetch, SANDBOX_OIDC_CLIENT, SANDBOX_OIDC_PATH, SandboxOidc } from './modules/staff/sandbox-oidc.ts';
import { StaffService } from './modules/staff/service.ts';
import { sessionRoutes } from './modules/staff/session-routes.ts';
import { DEFAULT_SESSION_SETTINGS, StaffSessions } from './modules/staff/sessions.ts';
import { SingleSignOn } from './modules/staff/sso.ts';
import { FleetLive } from './modules/cabinets/fleet-live.ts';
import { mediaRoutes } from './modules/media/routes.ts';
import { LocalMediaStore } from './modules/media/store.ts';
import { blockedRiderGuard } from './modules/auth/rider-blocks.ts';
import { OPS_PREFIX, opsApi } from './plugins/ops-api.ts';
import { opsRoutes } from './ops-routes.ts';
import { CouponsRepository } from './modules/coupons/repository.ts';
import { CouponsService } from './modules/coupons/service.ts';
import { productionGaps, type AppDeps } from './app-deps.ts';

export { productionGaps, type AppDeps } from './app-deps.ts';
import type {} from './app-instance.ts';

export async function buildApp(deps: AppDeps) {
  const sandboxOn = deps.sandboxMode !== 'off';
  if (!sandboxOn) {
    const gaps = productionGaps(deps);
    if (gaps.length) throw new Error(`SANDBOX=off, but these have no real configuration: ${gaps.join('; ')}`);
  }
  const app = Fastify({
    logger: deps.logger ?? false,
    // A hop count is valid at run time (Fastify docs: trustProxy "Number"), though not in the option's type.
    trustProxy: (deps.trustProxy ?? false) as boolean | string[],
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Composition: repositories over the db, services over repositories and side effects.
  const { db, clock } = deps;
  const log = app.log;
  const jobs = new JobRunner(db, clock, log);
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
  const auth = new AuthService(new AuthRepository(db), clock);
  const ledger = new LedgerService(new LedgerRepository(db), db);
  const liveness = new Liveness(clock, deps.offlineAfterMs);
  const liveRepo = new LiveRepository(db);
  const live = new LiveService({ db, repo: liveRepo, clock, log });
  const venues = new VenuesService(
    new VenuesRepository(db),
    liveness,
    clock,
    async (agentId) => (await noticesRepo.agentSettings(agentId))?.time_zone,
  );
  const cabinetsRepo = new CabinetsRepository(db, liveness);
  const embedRepo = new EmbedRepository(db);
  const payments = new PaymentsService(paymentsRepo, providers, clock, {
    // The agents are the embed module's (its service, made below: called only once requests come).
    agentExists: async (id) => (await embed.agent(id)) != null,
    appOrigins: deps.appOrigins ?? (deps.publicUrl ? [new URL(deps.publicUrl).origin] : []),
    loopbackIsApp: sandboxOn,
    agentOrigins: async (id) => (await embed.agent(id))?.origins ?? [],
  });
  const rentalsRepo = new RentalsRepository(db);
  const audit = new AuditService(new AuditRepository(db), clock);
  const coupons = new CouponsService({
    db,
    repo: new CouponsRepository(db),
    clock,
    ledger,
    audit,
    agentExists: async (id) => (await embedRepo.agent(id)) != null,
  });
  const partners = new PartnersService({ db, clock, repo: new PartnersRepository(db), ledger });
  const deposits = new DepositReturns({
    db,
    clock,
    jobs,
    ledger,
    payments,
    compensations: compensationsOf(jobs, providers),
    live,
    keepWindowMs: deps.depositKeepWindowMs,
  });
  const rentals = new RentalsService({
    db,
    clock,
    log,
    repo: rentalsRepo,
    users: auth,
    cabinets: cabinetsRepo,
    venues,
    ledger,
    payments,
    link: deps.link,
    jobs,
    partners,
    ejectTtlMs: deps.ejectTtlMs ?? 30_000,
    ejectGraceMs: deps.ejectGraceMs ?? 5_000,
    live,
    coupons,
    depositReturns: deposits,
    // Receipts and reminders follow each transition (made below, with the channels).
    notices: { changed: (orderId, state) => notices.changed(orderId, state) },
    buyOutReversalDays: (venueId) => noticesRepo.buyOutReversalDays(venueId),
  });
  const mifi = new MifiService({
    db,
    clock,
    log,
    repo: new MifiRepository(db),
    catalogueRepo: new MifiCatalogueRepository(db),
    boxesRepo: new MifiBoxesRepository(db),
    cabinets: cabinetsRepo,
    venues,
    ledger,
    payments,
    coupons,
    link: deps.link,
    jobs,
    live,
    ejectTtlMs: deps.ejectTtlMs ?? 30_000,
  });
  // The scan's reads, kept until the database announces a change to them (modules/cabinets/scan-cache.ts).
  const scanCache = new ScanCache(
    db,
    () => liveRepo.schema(),
    () => clock.now().getTime(),
  );
  const reservations = new ReturnReservations({
    db,
    clock,
    log,
    link: deps.link,
    jobs,
    liveness,
    renting: (userId) => rentals.renting(userId),
  });
  const cabinets = new CabinetsService({
    db,
    clock,
    log,
    repo: cabinetsRepo,
    rentals,
    link: deps.link,
    mifi,
    orders: ORDER_RULES,
    scanCache,
    reservations,
  });
  // Retention sweeps (docs/operations.md "Retention"): each owner registers its growing tables here.
  const retention = new Retention(jobs, clock, log).add(
    ...platformRules(db),
    { table: 'cabinet_events', keepDays: 90, sweep: (before) => cabinetsRepo.sweepEvents(before) },
    { table: 'cabinet_commands', keepDays: 180, sweep: (before) => cabinetsRepo.sweepCommands(before) },
    { table: 'cabinet_rejects', keepDays: 30, sweep: (before) => cabinetsRepo.sweepRejects(before) },
    // A payer token with a sealed card lives 10 minutes; one never used goes with the next sweep after its expiry.
    { table: 'external_method_tokens', keepDays: 0, sweep: (before) => externalRepo.sweepExpiredTokens(before) },
  );
  const content = new ContentService(new ContentRepository(db), clock, deps.wechat ?? new SandboxWeChat());
  const mailer = deps.mailer ?? new OutboxMailer('data/outbox', 'Powerly <receipts@powerly.local>');
  const invoices = new InvoiceService({ repo: new NotifyRepository(db), clock, rentals, mailer });
  const issuer = await SandboxIssuer.create(clock);
  const signInAd = signInAdapters(deps.signIn ?? {}, db, clock, issuer);
  const signInRepo = new SignInRepository(db);
  const alertsRepo = new AlertsRepository(db);
  const alerts = new AlertsService({ db, clock, repo: alertsRepo, jobs, liveness, mailer, sms: signInAd.sms });
  const dashboard = new DashboardService({ db, clock, jobs });
  const reconciliation = reconciliationOf(db, clock, jobs, payments);
  const {
    repo: noticesRepo,
    notices,
    vapidPublicKey,
  } = await noticeServices({
    db,
    clock,
    log,
    jobs,
    orders: rentalsRepo,
    payments,
    mailer,
    sms: signInAd.sms,
    live,
    vapidSubject: deps.vapidSubject,
    pushAgent: deps.pushAgent,
  });
  // Production: EMBED_SIGNING_KEY (required above). Sandbox: this installation's generated key, shared through the database.
  const signingKey =
    deps.embedSigningKey ?? (await new SecretsRepository(db).get('sandbox.embed-signing-key', clock.now()));
  const signIn = new SignInService(
    { db, repo: signInRepo, clock, auth, ledger, orders: rentalsRepo, ...signInAd, signingKey },
    (err) => log.warn({ err }, 'sms gateway failed'),
  );
  // Bank withdrawals: the real payout adapters, and the sandbox's only in test mode (never with SANDBOX=off).
  const rails = [...(deps.payoutRails ?? []), ...(sandboxOn ? [new SandboxBankRail()] : [])];
  const wallet = new WalletService({
    db,
    clock,
    log,
    repo: new WalletRepository(db),
    ledger,
    payments,
    jobs,
    live,
    rails,
  });
  // saveCardFlag: a method that saves the card after a paid payment (Flutterwave) hands it to the wallet's saved cards.
  methods.watch((agent, p) => {
    if (p.savesAfterPayment) p.onReusableCard = (c) => wallet.savePaidCard(agent, c);
  });
  // Every provider's notifications enter through payments' one webhook entry; a payout's outcome is the wallet's.
  const webhooks: WebhookDeps = {
    payments,
    db,
    clock,
    payoutNotified: (id, e) => wallet.withdrawals.payoutNotified(id, e),
  };
  // The sandbox's payout events reach the same entry as a real provider's webhook POST (test mode only).
  if (sandboxOn) {
    sandbox.connect(jobs, async (raw, signature) => {
      await deliver(webhooks, sandbox.id, raw, signature);
    });
  }
  const embed = new EmbedService({ repo: embedRepo, codes: new EmbedCodesRepository(db), auth, clock, signingKey });
  // The back office: staff identity, sessions, the audit log (docs/architecture.md "Back office").
  const staffRepo = new StaffRepository(db);
  const staff = new StaffService({
    db,
    repo: staffRepo,
    clock,
    audit,
    mailer,
    agentExists: async (id) => (await embedRepo.agent(id)) != null,
  });
  const staffSessions = new StaffSessions(staffRepo, clock, deps.ops?.sessions ?? DEFAULT_SESSION_SETTINGS);
  const opsOrigin = deps.ops?.origin ?? deps.publicUrl;
  const sandboxOidc =
    sandboxOn && !deps.ops?.sso
      ? await SandboxOidc.create(
          clock,
          await new SecretsRepository(db).get('sandbox.ops-oidc-client-secret', clock.now()),
        )
      : undefined;
  const sso = deps.ops?.sso
    ? new SingleSignOn(deps.ops.sso, staffRepo, clock)
    : sandboxOidc
      ? new SingleSignOn(
          {
            issuer: (origin) => `${origin}${SANDBOX_OIDC_PATH}`,
            clientId: SANDBOX_OIDC_CLIENT,
            clientSecret: sandboxOidc.clientSecret,
            insecure: true,
            fetch: injectFetch(app),
          },
          staffRepo,
          clock,
        )
      : undefined;
  retention.add(
    { table: 'staff_ceremonies', keepDays: 0, sweep: (before) => staffRepo.sweepCeremonies(before) },
    { table: 'staff_sessions', keepDays: 0, sweep: (before) => staffRepo.sweepSessions(before) },
  );
  const fleet = fleetServices({
    db,
    clock,
    liveness,
    secretsKey: cabinetSecretsKey({ given: deps.cabinetSecretsKey, db, clock, sandbox: sandboxOn }),
  });
  const media = deps.media ?? new LocalMediaStore('data/media');
  const fleetLive = new FleetLive(db, () => liveRepo.schema());
  app.decorate('powerly', {
    jobs,
    retention,
    ledger,
    wallet,
    payments,
    rentals,
    partners,
    alerts,
    dashboard,
    cabinets,
    scanCache,
    auth,
    sandbox,
    signIn,
    issuer,
    embed,
    live,
    mifi,
    fleet,
    staff,
    audit,
    coupons,
  });

  // 1. External plugins. Responses above 1 KiB go out br/gzip-compressed to clients that accept it; the front end's
  // files are precompressed (static.ts), and a response that already has a Content-Encoding is left alone.
  await app.register(compress, { threshold: 1024, encodings: ['br', 'gzip'] });
  // The page policy allows the client SDKs of the methods offered live now (Monri Components, MercadoPago.js), no other:
  // a method switched on in the console is allowed from the next request on.
  await app.register(securityHeaders, { extra: () => methods.csp });
  app.addHook('onRequest', async () => methods.fresh()); // another process's console save, within seconds (live.ts)
  // Before any route: every route registered after it gets its budget (plugins/rate-limit.ts).
  if (deps.rateLimits !== false) await app.register(rateLimits, { db });
  await app.register(formbody);
  // The rider API's document: security, error answers, content types, operation ids and links derived per route.
  await app.register(
    swagger,
    riderDocument((route) => [route.preHandler].flat().includes(app.requireUser)),
  );
  // 2. App plugins.
  await app.register(errors);
  await app.register(validation);
  await app.register(inputHygiene);
  await app.register(context, { auth });
  // 3. Routes. One idempotency store for every money-moving call (rentals, wallet).
  const keys = new IdempotencyStore(db);
  await app.register(
    async (api) => {
      api.addHook('onRoute', blockedRiderGuard);
      await api.register(authRoutes, { auth, walletOf: (userId, currency) => wallet.walletOf(userId, currency) });
      await api.register(venueRoutes, {
        venues,
        rider: async (token) => (token === undefined ? undefined : (await auth.authenticate(token)).id),
      });
      await api.register(walletRoutes, { wallet, keys, clock });
      await api.register(cabinetRoutes, { cabinets, auth, reservations });
      const savedCard = (u: number, c: string, a: string, m: string) => wallet.savedCardRef(u, c, a, m);
      await api.register(paymentRoutes, { payments, rentals, keys, clock, savedCard });
      await api.register(payerRoutes, { payments, clock, wechatOpenId: (userId: number) => auth.wechatOpenId(userId) });
      await api.register(depositRoutes, { rentals, deposits });
      await api.register(claimRoutes, {
        claims: new ClaimsService({
          db,
          clock,
          rentals,
          orders: rentalsRepo,
          cabinets: cabinetsRepo,
          evidence: new ReturnEvidenceRepository(db),
        }),
        grace: new GraceService({
          db,
          clock,
          jobs,
          rentals,
          orders: rentalsRepo,
          venues,
          settings: noticesRepo,
          reserved: (u) => reservations.current(u),
          notices,
          changed: (u, o) => live.publish(u, { kind: 'order', orderId: o }),
        }),
      });
      await api.register(noticeRoutes, { notices, repo: noticesRepo, clock, vapidPublicKey });
      await api.register(rentalRoutes, { rentals, payments, keys, clock, savedCard });
      await api.register(contentRoutes, { content });
      await api.register(invoiceRoutes, { invoices });
      await api.register(signInRoutes, {
        auth,
        walletOf: (userId, currency) => wallet.walletOf(userId, currency),
        signIn,
        sandbox: signInAd.sandbox,
      });
      await api.register(embedRoutes, { embed });
      // A venue page's live stock (GET live/shop): the page's own read, for the rider following it.
      await api.register(liveRoutes, {
        live,
        shops: {
          stock: (shopId, userId) => venues.detail(shopId, undefined, { userId }),
          changes: (fn) => fleetLive.subscribe(fn),
        },
      });
      await api.register(mifiRoutes, { mifi, payments, keys, clock, savedCard });
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      // The API's base address (printed at start-up) answers with where its description is, not a 404.
      api.get('/', { schema: { hide: true } }, async () => ({
        code: 0,
        msg: 'success',
        data: { openapi: `${API_PREFIX}/openapi.json` },
      }));
    },
    { prefix: API_PREFIX },
  );
  await app.register(leadRoutes, { content });
  await app.register(mediaRoutes, { store: media });
  await app.register(opsApi, {
    prefix: OPS_PREFIX,
    staff,
    sessions: staffSessions,
    routes: [
      sessionRoutes({
        staff,
        sessions: staffSessions,
        passkeys: new Passkeys(staffRepo, clock),
        sso,
        origin: opsOrigin,
      }),
      ...opsRoutes({
        db,
        clock,
        jobs,
        link: deps.link,
        liveness,
        fleetLive,
        fleet,
        media,
        audit,
        staff,
        opsOrigin,
        embed,
        mifi,
        coupons,
        ledger,
        payments,
        wallet,
        live,
        partners,
        alerts,
        alertsRepo,
        dashboard,
        rentals,
        desk: deps.desk,
        ssoOn: !!sso,
        methods,
        reconciliation,
      }),
    ],
  });
  if (sandboxOn) {
    await app.register(sandboxRoutes, { prefix: '/sandbox-pay/v1', sandbox });
    await app.register(sandboxCheckoutRoutes, { repo: externalRepo });
    await app.register(sandboxSignInRoutes, { issuer, outbox: signInRepo, sandbox: signInAd.sandbox });
    if (sandboxOidc) await app.register(sandboxOidc.routes(), { prefix: SANDBOX_OIDC_PATH });
  }
  await app.register(paymentWebhookRoutes, webhooks);
  await app.register(methodReturnRoutes, { repo: externalRepo, clock });
  await app.register(healthRoutes, { jobs, cabinets: cabinetsRepo, link: deps.link });
  if (deps.a8Registration) {
    await app.register(a8RegistrationRoutes, {
      ...deps.a8Registration,
      clock,
      credentials: new CabinetCredentialsRepository(db),
      exists: async (id: string) => Boolean(await cabinetsRepo.find(id)),
    });
  }
  if (deps.fleet && sandboxOn)
    await app.register(demoRoutes, { prefix: '/demo-api', fleet: deps.fleet, cabinets: cabinetsRepo, mifi });

  // The cabinet link delivers to the cabinets service once the app is ready; jobs poll while it runs.
  app.addHook('onReady', async () => {
    await live.start();
    await scanCache.start();
    await fleetLive.start();
    await deps.link.start(cabinets);
    if (deps.jobPollMs) {
      await retention.schedule();
      await alerts.schedule();
      await dashboard.schedule();
      await reconciliation.schedule();
      jobs.start(deps.jobPollMs);
      // The cabinet inbox: events left pending by a failure or by a process that died (docs/cabinet-protocol.md).
      cabinets.startInbox(Math.max(1000, deps.jobPollMs));
    }
  });
  app.addHook('onClose', async () => {
    await jobs.stop();
    await cabinets.stopInbox();
    await live.stop();
    await scanCache.stop();
    await fleetLive.stop();
    await deps.link.close();
  });
  return app;
}

export type PowerlyApp = Awaited<ReturnType<typeof buildApp>>;
