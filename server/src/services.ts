// The composition of buildApp (app.ts): repositories over the database, services over repositories and the
// injected side effects (clock, cabinet link, payment providers, mailer), each made once and handed to those that
// call it. What the routes, the ops API and the app's lifecycle use is returned.
import { platformRules, Retention } from './jobs/retention.ts';
import { JobRunner } from './jobs/runner.ts';
import { AuthRepository, SignInRepository } from './modules/auth/repository.ts';
import { AuthService } from './modules/auth/service.ts';
import { Liveness } from './modules/cabinets/liveness.ts';
import { CabinetsRepository } from './modules/cabinets/repository.ts';
import { CabinetsService, ReturnReservations } from './modules/cabinets/service.ts';
import { ScanCache } from './modules/cabinets/scan-cache.ts';
import { EmbedCodesRepository, EmbedRepository } from './modules/embed/repository.ts';
import { EmbedService } from './modules/embed/service.ts';
import { SandboxBankRail } from './modules/payments/payouts/sandbox.ts';
import { PaymentsService } from './modules/payments/service.ts';
import { RentalsRepository } from './modules/rentals/repository.ts';
import { DepositReturns } from './modules/rentals/deposit-returns.ts';
import { compensationsOf } from './modules/payments/compensation.ts';
import { noticeServices } from './notices.ts';
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
import { deliver, type WebhookDeps } from './modules/payments/webhooks.ts';
import { WalletRepository } from './modules/wallet/repository.ts';
import { WalletService } from './modules/wallet/service.ts';
import { SecretsRepository } from './secrets/repository.ts';
import { LedgerRepository } from './modules/ledger/repository.ts';
import { LedgerService } from './modules/ledger/service.ts';
import { LiveRepository } from './modules/live/repository.ts';
import { LiveService } from './modules/live/service.ts';
import { ContentRepository } from './modules/content/repository.ts';
import { ContentService } from './modules/content/service.ts';
import { SandboxWeChat } from './modules/content/wechat.ts';
import { InvoiceService } from './modules/notify/invoice.ts';
import { OutboxMailer } from './modules/notify/mailer.ts';
import { NotifyRepository } from './modules/notify/repository.ts';
import { SandboxIssuer } from './modules/auth/sandbox-issuer.ts';
import { signInAdapters } from './modules/auth/signin-config.ts';
import { SignInService } from './modules/auth/signin.ts';
import { AuditRepository } from './modules/audit/repository.ts';
import { AuditService } from './modules/audit/service.ts';
import { FleetLive } from './modules/cabinets/fleet-live.ts';
import { LocalMediaStore } from './modules/media/store.ts';
import { CouponsRepository } from './modules/coupons/repository.ts';
import { CouponsService } from './modules/coupons/service.ts';
import { paymentProviders } from './payment-providers.ts';
import { staffServices } from './staff.ts';
import type { AppDeps } from './app-deps.ts';
import type { App } from './lib/route.ts';

export async function composeServices(app: App, deps: AppDeps, sandboxOn: boolean) {
  const { db, clock } = deps;
  const log = app.log;
  const jobs = new JobRunner(db, clock, log);
  const { sandbox, providers, paymentsRepo, externalRepo, methods } = await paymentProviders({
    deps,
    db,
    clock,
    log,
    sandboxOn,
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
    notices: { changed: (orderId, state, order) => notices.changed(orderId, state, order) },
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
  // The back office: staff identity, sessions, single sign-on (docs/architecture.md "Back office").
  const { staffRepo, staff, staffSessions, opsOrigin, sandboxOidc, sso } = await staffServices({
    app,
    deps,
    audit,
    mailer,
    agentExists: async (id) => (await embedRepo.agent(id)) != null,
    sandboxOn,
  });
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
  return {
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
  };
}
