// The wallet service's dependencies (its parts, withdrawals.ts and bank-payouts.ts, take the same).
import type { PayoutConfig } from '../../config/payouts.ts';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../cabinets/link.ts';
import type { LedgerService } from '../ledger/service.ts';
import type { LiveService } from '../live/service.ts';
import type { BankPayoutRail } from '../payments/payouts/rail.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { WalletRepository } from './repository.ts';

export interface WalletDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  repo: WalletRepository;
  ledger: LedgerService;
  payments: PaymentsService;
  jobs: JobRunner;
  /** The operator's payout configuration (default: server/src/config/payouts.json or PAYOUTS_CONFIG). */
  payouts?: PayoutConfig;
  /** Tells the user's open screens that the wallet changed (delivered when the unit of work commits). */
  live: Pick<LiveService, 'publish'>;
  /** The bank payout adapters (payments/payouts/); none: every bank withdrawal awaits an operator. */
  rails?: BankPayoutRail[];
}
