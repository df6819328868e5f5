// buildApp(deps): the whole HTTP application over injected side effects (database, clock, cabinet link,
// payment providers, optional simulator). Load order as in fastify/demo: external plugins → app plugins → routes.
import healthRoutes from './health.ts';
import Fastify from 'fastify';
import compress from '@fastify/compress';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { API_PREFIX } from './lib/route.ts';
import authRoutes from './modules/auth/routes.ts';
import cabinetRoutes from './modules/cabinets/routes.ts';
import { CabinetCredentialsRepository } from './modules/cabinets/credentials-repository.ts';
import a8RegistrationRoutes from './modules/cabinets/vendors/a8/registration.ts';
import demoRoutes from './demo/routes.ts';
import embedRoutes from './modules/embed/routes.ts';
import paymentRoutes from './modules/payments/routes.ts';
import sandboxRoutes from './modules/payments/sandbox-routes.ts';
import { methodReturnRoutes, payerRoutes, sandboxCheckoutRoutes } from './modules/payments/methods/routes.ts';
import rentalRoutes from './modules/rentals/routes.ts';
import depositRoutes from './modules/rentals/deposit-routes.ts';
import claimRoutes from './modules/rentals/claim-routes.ts';
import { ClaimsService, GraceService } from './modules/rentals/claims.ts';
import { ReturnEvidenceRepository } from './modules/cabinets/evidence-repository.ts';
import noticeRoutes from './modules/notify/notice-routes.ts';
import mifiRoutes from './modules/mifi/routes.ts';
import venueRoutes from './modules/venues/routes.ts';
import walletRoutes from './modules/wallet/routes.ts';
import { paymentWebhookRoutes } from './modules/payments/webhooks.ts';
import { IdempotencyStore } from './idempotency/repository.ts';
import liveRoutes from './modules/live/routes.ts';
import context from './plugins/context.ts';
import inputHygiene from './plugins/input.ts';
import rateLimits from './plugins/rate-limit.ts';
import securityHeaders from './plugins/security.ts';
import errors from './plugins/errors.ts';
import validation from './plugins/validation.ts';
import { riderDocument } from './lib/openapi.ts';
import contentRoutes, { leadRoutes } from './modules/content/routes.ts';
import invoiceRoutes from './modules/notify/routes.ts';
import sandboxSignInRoutes from './modules/auth/sandbox-routes.ts';
import signInRoutes from './modules/auth/signin-routes.ts';
import { Passkeys } from './modules/staff/passkeys.ts';
import { sessionRoutes } from './modules/staff/session-routes.ts';
import { mediaRoutes } from './modules/media/routes.ts';
import { blockedRiderGuard } from './modules/auth/rider-blocks.ts';
import { OPS_PREFIX, opsApi } from './plugins/ops-api.ts';
import { opsRoutes } from './ops-routes.ts';
import { productionGaps, type AppDeps } from './app-deps.ts';
import { SANDBOX_OIDC_PATH } from './modules/staff/sandbox-oidc.ts';
import { composeServices } from './services.ts';
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

  // Composition: repositories over the db, services over repositories and side effects (services.ts).
  const { db, clock } = deps;
  const {
    jobs,
    auth,
    ledger,
    liveness,
    live,
    venues,
    cabinetsRepo,
    payments,
    rentalsRepo,
    audit,
    coupons,
    partners,
    deposits,
    rentals,
    mifi,
    scanCache,
    reservations,
    cabinets,
    retention,
    content,
    invoices,
    issuer,
    signInAd,
    signInRepo,
    alertsRepo,
    alerts,
    dashboard,
    reconciliation,
    signIn,
    wallet,
    webhooks,
    embed,
    fleet,
    media,
    fleetLive,
    sandbox,
    externalRepo,
    methods,
    noticesRepo,
    notices,
    vapidPublicKey,
    staffRepo,
    staff,
    staffSessions,
    opsOrigin,
    sandboxOidc,
    sso,
  } = await composeServices(app, deps, sandboxOn);
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
