// The support desk's services, composed once (app.ts; like fleet.ts, outside the modules): over rentals, the reads
// of the timeline from each owning module's history repository, the refunds and the other corrections; the searches
// of riders, payments and Wi-Fi packages (a package's timeline read like a rental's), each naming riders one way.
import type { Db } from './db/db.ts';
import type { JobRunner } from './jobs/runner.ts';
import type { Clock } from './lib/clock.ts';
import type { RidersNamed } from './lib/ops-query.ts';
import type { AuditService } from './modules/audit/service.ts';
import { RiderSearchService } from './modules/auth/rider-search.ts';
import { RidersRepository } from './modules/auth/riders-repository.ts';
import { CabinetHistoryRepository } from './modules/cabinets/history-repository.ts';
import { LedgerHistoryRepository } from './modules/ledger/history-repository.ts';
import type { LedgerService } from './modules/ledger/service.ts';
import type { LiveService } from './modules/live/service.ts';
import { PackagesDesk } from './modules/mifi/packages-desk.ts';
import { PackagesOpsRepository } from './modules/mifi/packages-ops-repository.ts';
import { NotifyHistoryRepository } from './modules/notify/history-repository.ts';
import { PaymentsHistoryRepository } from './modules/payments/history-repository.ts';
import { PaymentsOpsRepository } from './modules/payments/ops-repository.ts';
import { PaymentSearchService } from './modules/payments/ops-search.ts';
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

export function deskServices(d: {
  db: Db;
  clock: Clock;
  jobs: JobRunner;
  ledger: LedgerService;
  payments: PaymentsService;
  audit: AuditService;
  live: LiveService;
  rentals: RentalsService;
  settings: DeskSettings;
}) {
  const repo = new RentalsOpsRepository(d.db);
  const ledgerHistory = new LedgerHistoryRepository(d.db);
  const paymentsHistory = new PaymentsHistoryRepository(d.db);
  const riders = new RidersRepository(d.db);
  const named = ridersNamed(riders, paymentsHistory);
  const desk = new RentalsDesk({
    clock: d.clock,
    repo,
    riders,
    named,
    cabinets: new CabinetHistoryRepository(d.db),
    ledger: ledgerHistory,
    payments: d.payments,
    paymentsHistory,
    notify: new NotifyHistoryRepository(d.db),
    audit: d.audit,
  });
  const refunds = new RentalRefunds({
    db: d.db,
    clock: d.clock,
    jobs: d.jobs,
    repo,
    ledger: d.ledger,
    ledgerHistory,
    payments: d.payments,
    paymentsHistory,
    audit: d.audit,
    live: d.live,
    settings: d.settings,
  });
  const actions = new RentalActions({ db: d.db, clock: d.clock, repo, rentals: d.rentals, audit: d.audit });
  const disputes = new DisputeDesk({
    db: d.db,
    clock: d.clock,
    repo: new DisputesOpsRepository(d.db),
    orders: new RentalsRepository(d.db),
    rentals: d.rentals,
    audit: d.audit,
    live: d.live,
  });
  const contacts = (ids: number[]) => riders.contacts(ids);
  return {
    desk,
    refunds,
    actions,
    disputes,
    riders: new RiderSearchService({ riders, named }),
    payments: new PaymentSearchService({ repo: new PaymentsOpsRepository(d.db), named, contacts }),
    packages: new PackagesDesk({
      clock: d.clock,
      repo: new PackagesOpsRepository(d.db),
      named,
      contacts,
      cabinets: new CabinetHistoryRepository(d.db),
      payments: d.payments,
      paymentsHistory,
      ledger: ledgerHistory,
      notify: new NotifyHistoryRepository(d.db),
      audit: d.audit,
    }),
  };
}

/** The riders a search's rider fields name: each field's riders (a phone's, an e-mail's, a card's payers), intersected. */
export function ridersNamed(riders: RidersRepository, payments: PaymentsHistoryRepository): RidersNamed {
  return async (q) => {
    let ids: number[] | null = null;
    const and = (found: number[]) => {
      ids = ids === null ? found : ids.filter((x) => found.includes(x));
    };
    if (q.phone) and(await riders.matching({ phone: q.phone }));
    if (q.email) and(await riders.matching({ email: q.email }));
    if (q.riderId) and([Number(q.riderId)]);
    if (q.cardLast4) and(await payments.usersOfCard(q.cardLast4));
    return ids;
  };
}
