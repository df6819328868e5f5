// The support desk's services over rentals, composed once (app.ts; like fleet.ts, outside the modules): the reads
// of the timeline from each owning module's history repository, the refunds and the other corrections.
import type { Db } from './db/db.ts';
import type { JobRunner } from './jobs/runner.ts';
import type { Clock } from './lib/clock.ts';
import type { AuditService } from './modules/audit/service.ts';
import { RidersRepository } from './modules/auth/riders-repository.ts';
import { CabinetHistoryRepository } from './modules/cabinets/history-repository.ts';
import { LedgerHistoryRepository } from './modules/ledger/history-repository.ts';
import type { LedgerService } from './modules/ledger/service.ts';
import type { LiveService } from './modules/live/service.ts';
import { NotifyHistoryRepository } from './modules/notify/history-repository.ts';
import { PaymentsHistoryRepository } from './modules/payments/history-repository.ts';
import type { PaymentsService } from './modules/payments/service.ts';
import type { DeskSettings } from './modules/rentals/ops-config.ts';
import type { RentalsService } from './modules/rentals/service.ts';
import { DisputeDesk } from './modules/rentals/dispute-desk.ts';
import { DisputesOpsRepository } from './modules/rentals/disputes-ops-repository.ts';
import { RentalActions } from './modules/rentals/ops-actions.ts';
import { RentalsDesk } from './modules/rentals/ops-desk.ts';
import { RentalRefunds } from './modules/rentals/ops-refund.ts';
import { RentalsOpsRepository } from './modules/rentals/ops-repository.ts';
import { RentalsRepository } from './modules/rentals/repository.ts';

export function deskServices(d: { db: Db; clock: Clock; jobs: JobRunner; ledger: LedgerService; payments: PaymentsService; audit: AuditService; live: LiveService; rentals: RentalsService; settings: DeskSettings }) {
  const repo = new RentalsOpsRepository(d.db);
  const ledgerHistory = new LedgerHistoryRepository(d.db);
  const paymentsHistory = new PaymentsHistoryRepository(d.db);
  const desk = new RentalsDesk({
    clock: d.clock, repo, riders: new RidersRepository(d.db), cabinets: new CabinetHistoryRepository(d.db), ledger: ledgerHistory,
    payments: d.payments, paymentsHistory, notify: new NotifyHistoryRepository(d.db), audit: d.audit,
  });
  const refunds = new RentalRefunds({ db: d.db, clock: d.clock, jobs: d.jobs, repo, ledger: d.ledger, ledgerHistory, payments: d.payments, paymentsHistory, audit: d.audit, live: d.live, settings: d.settings });
  const actions = new RentalActions({ db: d.db, clock: d.clock, repo, rentals: d.rentals, audit: d.audit });
  const disputes = new DisputeDesk({
    db: d.db, clock: d.clock, repo: new DisputesOpsRepository(d.db), orders: new RentalsRepository(d.db), rentals: d.rentals, audit: d.audit, live: d.live,
  });
  return { desk, refunds, actions, disputes };
}
