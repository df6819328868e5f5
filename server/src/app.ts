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
  const s = await composeServices(app, deps, sandboxOn);
  app.decorate('powerly', {
    jobs: s.jobs,
    retention: s.retention,
    ledger: s.ledger,
    wallet: s.wallet,
    payments: s.payments,
    rentals: s.rentals,
    partners: s.partners,
    alerts: s.alerts,
    dashboard: s.dashboard,
    cabinets: s.cabinets,
    scanCache: s.scanCache,
    auth: s.auth,
    sandbox: s.sandbox,
    signIn: s.signIn,
    issuer: s.issuer,
    embed: s.embed,
    live: s.live,
    mifi: s.mifi,
    fleet: s.fleet,
    staff: s.staff,
    audit: s.audit,
    coupons: s.coupons,
  });

  // 1. External plugins. Responses above 1 KiB go out br/gzip-compressed to clients that accept it; the front end's
  // files are precompressed (static.ts), and a response that already has a Content-Encoding is left alone.
  await app.register(compress, { threshold: 1024, encodings: ['br', 'gzip'] });
  // The page policy allows the client SDKs of the methods offered live now (Monri Components, MercadoPago.js), no other:
  // a method switched on in the console is allowed from the next request on.
  await app.register(securityHeaders, { extra: () => s.methods.csp });
  app.addHook('onRequest', async () => s.methods.fresh()); // another process's console save, within seconds (live.ts)
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
  await app.register(context, { auth: s.auth });
  // 3. Routes. One idempotency store for every money-moving call (rentals, wallet).
  const keys = new IdempotencyStore(db);
  await app.register(
    async (api) => {
      api.addHook('onRoute', blockedRiderGuard);
      await api.register(authRoutes, {
        auth: s.auth,
        walletOf: (userId, currency) => s.wallet.walletOf(userId, currency),
      });
      await api.register(venueRoutes, {
        venues: s.venues,
        rider: async (token) => (token === undefined ? undefined : (await s.auth.authenticate(token)).id),
      });
      await api.register(walletRoutes, { wallet: s.wallet, keys, clock });
      await api.register(cabinetRoutes, { cabinets: s.cabinets, auth: s.auth, reservations: s.reservations });
      const savedCard = (u: number, c: string, a: string, m: string) => s.wallet.savedCardRef(u, c, a, m);
      await api.register(paymentRoutes, { payments: s.payments, rentals: s.rentals, keys, clock, savedCard });
      await api.register(payerRoutes, {
        payments: s.payments,
        clock,
        wechatOpenId: (userId: number) => s.auth.wechatOpenId(userId),
      });
      await api.register(depositRoutes, { rentals: s.rentals, deposits: s.deposits });
      await api.register(claimRoutes, {
        claims: new ClaimsService({
          db,
          clock,
          rentals: s.rentals,
          orders: s.rentalsRepo,
          cabinets: s.cabinetsRepo,
          evidence: new ReturnEvidenceRepository(db),
        }),
        grace: new GraceService({
          db,
          clock,
          jobs: s.jobs,
          rentals: s.rentals,
          orders: s.rentalsRepo,
          venues: s.venues,
          settings: s.noticesRepo,
          reserved: (u) => s.reservations.current(u),
          notices: s.notices,
          changed: (u, o) => s.live.publish(u, { kind: 'order', orderId: o }),
        }),
      });
      await api.register(noticeRoutes, {
        notices: s.notices,
        repo: s.noticesRepo,
        clock,
        vapidPublicKey: s.vapidPublicKey,
      });
      await api.register(rentalRoutes, { rentals: s.rentals, payments: s.payments, keys, clock, savedCard });
      await api.register(contentRoutes, { content: s.content });
      await api.register(invoiceRoutes, { invoices: s.invoices });
      await api.register(signInRoutes, {
        auth: s.auth,
        walletOf: (userId, currency) => s.wallet.walletOf(userId, currency),
        signIn: s.signIn,
        sandbox: s.signInAd.sandbox,
      });
      await api.register(embedRoutes, { embed: s.embed });
      // A venue page's live stock (GET live/shop): the page's own read, for the rider following it.
      await api.register(liveRoutes, {
        live: s.live,
        shops: {
          stock: (shopId, userId) => s.venues.detail(shopId, undefined, { userId }),
          changes: (fn) => s.fleetLive.subscribe(fn),
        },
      });
      await api.register(mifiRoutes, { mifi: s.mifi, payments: s.payments, keys, clock, savedCard });
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
  await app.register(leadRoutes, { content: s.content });
  await app.register(mediaRoutes, { store: s.media });
  await app.register(opsApi, {
    prefix: OPS_PREFIX,
    staff: s.staff,
    sessions: s.staffSessions,
    routes: [
      sessionRoutes({
        staff: s.staff,
        sessions: s.staffSessions,
        passkeys: new Passkeys(s.staffRepo, clock),
        sso: s.sso,
        origin: s.opsOrigin,
      }),
      ...opsRoutes({ ...s, db, clock, link: deps.link, desk: deps.desk, ssoOn: !!s.sso }),
    ],
  });
  if (sandboxOn) {
    await app.register(sandboxRoutes, { prefix: '/sandbox-pay/v1', sandbox: s.sandbox });
    await app.register(sandboxCheckoutRoutes, { repo: s.externalRepo });
    await app.register(sandboxSignInRoutes, { issuer: s.issuer, outbox: s.signInRepo, sandbox: s.signInAd.sandbox });
    if (s.sandboxOidc) await app.register(s.sandboxOidc.routes(), { prefix: SANDBOX_OIDC_PATH });
  }
  await app.register(paymentWebhookRoutes, s.webhooks);
  await app.register(methodReturnRoutes, { repo: s.externalRepo, clock });
  await app.register(healthRoutes, { jobs: s.jobs, cabinets: s.cabinetsRepo, link: deps.link });
  if (deps.a8Registration) {
    await app.register(a8RegistrationRoutes, {
      ...deps.a8Registration,
      clock,
      credentials: new CabinetCredentialsRepository(db),
      exists: async (id: string) => Boolean(await s.cabinetsRepo.find(id)),
    });
  }
  if (deps.fleet && sandboxOn)
    await app.register(demoRoutes, { prefix: '/demo-api', fleet: deps.fleet, cabinets: s.cabinetsRepo, mifi: s.mifi });

  // The cabinet link delivers to the cabinets service once the app is ready; jobs poll while it runs.
  app.addHook('onReady', async () => {
    await s.live.start();
    await s.scanCache.start();
    await s.fleetLive.start();
    await deps.link.start(s.cabinets);
    if (deps.jobPollMs) {
      await s.retention.schedule();
      await s.alerts.schedule();
      await s.dashboard.schedule();
      await s.reconciliation.schedule();
      s.jobs.start(deps.jobPollMs);
      // The cabinet inbox: events left pending by a failure or by a process that died (docs/cabinet-protocol.md).
      s.cabinets.startInbox(Math.max(1000, deps.jobPollMs));
    }
  });
  app.addHook('onClose', async () => {
    await s.jobs.stop();
    await s.cabinets.stopInbox();
    await s.live.stop();
    await s.scanCache.stop();
    await s.fleetLive.stop();
    await deps.link.close();
  });
  return app;
}

export type PowerlyApp = Awaited<ReturnType<typeof buildApp>>;
