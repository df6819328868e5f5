// The ops API's routes (the back office), composed once over the app's services: each module's ops routes with the
// services they need. app.ts registers the list inside the ops API's scope (plugins/ops-api.ts: the authorisation
// step, errors, the document); like fleet.ts and desk.ts, this file is composition, not a module.
import type { Db } from './db/db.ts';
import { deskServices } from './desk.ts';
import type { Fleet } from './fleet.ts';
import type { JobRunner } from './jobs/runner.ts';
import { deadJobOpsRoutes } from './jobs/ops-routes.ts';
import type { Clock } from './lib/clock.ts';
import type { App } from './lib/route.ts';
import { AlertsAdmin } from './modules/alerts/admin.ts';
import { alertsOpsRoutes } from './modules/alerts/ops-routes.ts';
import type { AlertsRepository } from './modules/alerts/repository.ts';
import type { AlertsService } from './modules/alerts/service.ts';
import { dashboardOpsRoutes } from './modules/dashboard/ops-routes.ts';
import type { DashboardService } from './modules/dashboard/service.ts';
import { auditOpsRoutes } from './modules/audit/ops-routes.ts';
import type { AuditService } from './modules/audit/service.ts';
import { RiderBlocksRepository } from './modules/auth/blocks-repository.ts';
import { riderOpsRoutes } from './modules/auth/ops-routes.ts';
import { RiderBlocks } from './modules/auth/rider-blocks.ts';
import { RidersRepository } from './modules/auth/riders-repository.ts';
import type { FleetLive } from './modules/cabinets/fleet-live.ts';
import type { CabinetLink } from './modules/cabinets/link.ts';
import type { Liveness } from './modules/cabinets/liveness.ts';
import { cabinetInboxOpsRoutes } from './modules/cabinets/inbox-routes.ts';
import { CabinetOpsRepository } from './modules/cabinets/ops-repository.ts';
import { cabinetOpsRoutes } from './modules/cabinets/ops-routes.ts';
import { CabinetOpsService } from './modules/cabinets/ops.ts';
import { couponOpsRoutes } from './modules/coupons/ops-routes.ts';
import type { CouponsService } from './modules/coupons/service.ts';
import { agentsOpsRoutes } from './modules/embed/ops-routes.ts';
import type { EmbedService } from './modules/embed/service.ts';
import { moneyOpsRoutes } from './modules/ledger/ops-routes.ts';
import { DEFAULT_AGENT, LedgerRepository } from './modules/ledger/repository.ts';
import type { LedgerService } from './modules/ledger/service.ts';
import type { LiveService } from './modules/live/service.ts';
import type { MediaStore } from './modules/media/store.ts';
import { MifiOpsRepository } from './modules/mifi/ops-repository.ts';
import { mifiOpsRoutes } from './modules/mifi/ops-routes.ts';
import { packageOpsRoutes } from './modules/mifi/packages-routes.ts';
import { MifiOpsService } from './modules/mifi/ops.ts';
import { MifiCatalogueRepository } from './modules/mifi/catalogue-repository.ts';
import type { MifiService } from './modules/mifi/service.ts';
import { rebalancingOpsRoutes } from './modules/rebalancing/ops-routes.ts';
import { Rebalancing } from './modules/rebalancing/service.ts';
import { partnersOpsRoutes } from './modules/partners/ops-routes.ts';
import type { PartnersService } from './modules/partners/service.ts';
import { partnersAdmin } from './modules/partners/wiring.ts';
import { paymentOpsRoutes } from './modules/payments/ops-routes.ts';
import type { Reconciliation } from './modules/payments/reconciliation.ts';
import type { PaymentsService } from './modules/payments/service.ts';
import type { LiveMethods } from './modules/payments/settings/live.ts';
import { paymentSettingsOpsRoutes } from './modules/payments/settings/ops-routes.ts';
import { PaymentSettingsService } from './modules/payments/settings/service.ts';
import type { DeskSettings } from './modules/rentals/ops-config.ts';
import type { RentalsService } from './modules/rentals/service.ts';
import { disputeOpsRoutes } from './modules/rentals/dispute-routes.ts';
import { rentalOpsRoutes } from './modules/rentals/ops-routes.ts';
import { staffOpsRoutes } from './modules/staff/ops-routes.ts';
import type { StaffService } from './modules/staff/service.ts';
import { venuesOpsRoutes } from './modules/venues/ops-routes.ts';
import { adjustmentOpsRoutes } from './modules/wallet/adjustment-routes.ts';
import { WalletAdjustments } from './modules/wallet/adjustments.ts';
import { AdjustmentsRepository } from './modules/wallet/adjustments-repository.ts';
import { withdrawalOpsRoutes } from './modules/wallet/ops-routes.ts';
import { PayoutQueue } from './modules/wallet/payout-queue.ts';
import { checkLedger } from './modules/wallet/reconcile.ts';
import { WalletRepository } from './modules/wallet/repository.ts';
import type { WalletService } from './modules/wallet/service.ts';

export interface OpsRouteDeps {
  db: Db;
  clock: Clock;
  jobs: JobRunner;
  link: CabinetLink;
  liveness: Liveness;
  fleetLive: FleetLive;
  fleet: Fleet;
  media: MediaStore;
  audit: AuditService;
  staff: StaffService;
  opsOrigin?: string;
  embed: EmbedService;
  mifi: MifiService;
  coupons: CouponsService;
  ledger: LedgerService;
  payments: PaymentsService;
  wallet: WalletService;
  live: LiveService;
  partners: PartnersService;
  alerts: AlertsService;
  alertsRepo: AlertsRepository;
  dashboard: DashboardService;
  rentals: RentalsService;
  desk?: DeskSettings;
  reconciliation: Reconciliation;
  /** Whether single sign-on is configured (invitations by single sign-on need it). */
  ssoOn?: boolean;
  /** Each agent's payment methods as offered now (payments/settings/live.ts). */
  methods: LiveMethods;
}

/** Every module's ops routes but the session's (which app.ts adds with the sign-in ceremonies). */
export function opsRoutes(d: OpsRouteDeps): Array<(ops: App) => Promise<void>> {
  const { db, clock, audit, fleet } = d;
  const cabinetOps = new CabinetOpsService({
    db,
    clock,
    repo: new CabinetOpsRepository(db),
    fleet: fleet.cabinets,
    link: d.link,
    liveness: d.liveness,
    audit,
    agentExists: async (id) => (await d.embed.agent(id)) != null,
  });
  const mifiOps = new MifiOpsService({
    db,
    clock,
    repo: new MifiOpsRepository(db),
    mifi: new MifiCatalogueRepository(db),
    catalogue: fleet.mifi,
    service: d.mifi,
    audit,
  });
  const rebalancing = new Rebalancing({ db, clock, liveness: d.liveness, audit });
  const desk = deskServices({
    db,
    clock,
    jobs: d.jobs,
    ledger: d.ledger,
    payments: d.payments,
    audit,
    live: d.live,
    rentals: d.rentals,
    settings: d.desk ?? {},
  });
  return [
    staffOpsRoutes({ staff: d.staff, origin: d.opsOrigin, ssoOn: d.ssoOn }),
    auditOpsRoutes({ audit }),
    cabinetOpsRoutes({ cabinets: cabinetOps, live: d.fleetLive }),
    mifiOpsRoutes({ mifi: mifiOps }),
    couponOpsRoutes({ coupons: d.coupons }),
    venuesOpsRoutes({ db, clock, fleet, audit, media: d.media }),
    agentsOpsRoutes({ db, fleet, audit }),
    moneyOpsRoutes({ repo: new LedgerRepository(db), check: () => checkLedger(db) }),
    deadJobOpsRoutes({ db, deadJobs: fleet.deadJobs, audit }),
    cabinetInboxOpsRoutes({ db, cabinets: fleet.cabinets, audit }),
    riderOpsRoutes({
      blocks: new RiderBlocks({
        db,
        clock,
        repo: new RiderBlocksRepository(db),
        audit,
        customerOf: async (id) => (await new RidersRepository(db).agentsOf([Number(id)])).get(Number(id)) ?? [],
      }),
      search: desk.riders,
    }),
    paymentOpsRoutes({ search: desk.payments, reconciliation: d.reconciliation, audit }),
    packageOpsRoutes({ desk: desk.packages }),
    withdrawalOpsRoutes({
      queue: new PayoutQueue({
        db,
        repo: new WalletRepository(db),
        bank: d.wallet.withdrawals.bank,
        audit,
        ridersMatching: (q) => new RidersRepository(db).matching({ any: q }),
      }),
    }),
    adjustmentOpsRoutes({
      adjustments: new WalletAdjustments({
        db,
        clock,
        repo: new AdjustmentsRepository(db),
        ledger: d.ledger,
        agentsOfUser: (id) => new LedgerRepository(db).agentsOfUser(id),
        audit,
        live: d.live,
      }),
    }),
    rentalOpsRoutes(desk),
    disputeOpsRoutes(desk),
    partnersOpsRoutes({ admin: partnersAdmin(db, clock, d.partners, d.ledger, audit) }),
    alertsOpsRoutes({ admin: new AlertsAdmin({ db, clock, repo: d.alertsRepo, alerts: d.alerts, audit }) }),
    dashboardOpsRoutes({ dashboard: d.dashboard, stock: rebalancing }),
    rebalancingOpsRoutes({ rebalancing }),
    paymentSettingsOpsRoutes({
      settings: new PaymentSettingsService({
        db,
        clock,
        live: d.methods,
        audit,
        platformAgent: DEFAULT_AGENT,
        agentExists: async (id) => (await d.embed.agent(id)) != null,
      }),
    }),
  ];
}
