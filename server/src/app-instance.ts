// What `app.powerly` holds: the services a test, a script or the demo reaches through the built app (app.ts
// decorates it).
import type { Fleet } from './fleet.ts';
import type { Retention } from './jobs/retention.ts';
import type { JobRunner } from './jobs/runner.ts';
import type { AlertsService } from './modules/alerts/service.ts';
import type { AuditService } from './modules/audit/service.ts';
import type { SandboxIssuer } from './modules/auth/sandbox-issuer.ts';
import type { AuthService } from './modules/auth/service.ts';
import type { SignInService } from './modules/auth/signin.ts';
import type { ScanCache } from './modules/cabinets/scan-cache.ts';
import type { CabinetsService } from './modules/cabinets/service.ts';
import type { CouponsService } from './modules/coupons/service.ts';
import type { DashboardService } from './modules/dashboard/service.ts';
import type { EmbedService } from './modules/embed/service.ts';
import type { LedgerService } from './modules/ledger/service.ts';
import type { LiveService } from './modules/live/service.ts';
import type { MifiService } from './modules/mifi/service.ts';
import type { PartnersService } from './modules/partners/service.ts';
import type { SandboxCardProvider } from './modules/payments/sandbox.ts';
import type { PaymentsService } from './modules/payments/service.ts';
import type { RentalsService } from './modules/rentals/service.ts';
import type { StaffService } from './modules/staff/service.ts';
import type { WalletService } from './modules/wallet/service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    powerly: {
      jobs: JobRunner;
      /** Retention sweeps of the growing tables (a recurring job). */
      retention: Retention;
      /** The double-entry ledger (accounts, transfers, holds). */
      ledger: LedgerService;
      /** The wallet product: top-up, withdrawal, movements, saved cards. */
      wallet: WalletService;
      payments: PaymentsService;
      rentals: RentalsService;
      /** Partners' revenue share, rules and statements. */
      partners: PartnersService;
      /** Alert rules, alerts and their deliveries. */
      alerts: AlertsService;
      dashboard: DashboardService;
      cabinets: CabinetsService;
      /** The scan's reads kept in this process (hits, misses). */
      scanCache: ScanCache;
      auth: AuthService;
      sandbox: SandboxCardProvider;
      signIn: SignInService;
      issuer: SandboxIssuer;
      embed: EmbedService;
      /** Live updates: publish (inside a unit of work) and the streams of this process. */
      live: LiveService;
      /** Wi-Fi packages and boxes. */
      mifi: MifiService;
      /** The fleet's operations: agents, venues, price plans, cabinets, the Wi-Fi catalogue, dead jobs. */
      fleet: Fleet;
      /** The back office's staff (identity, memberships, invitations). */
      staff: StaffService;
      /** The back office's audit log. */
      audit: AuditService;
      /** Coupons: what paying calls take off, and the back office's coupon desk. */
      coupons: CouponsService;
    };
  }
}
