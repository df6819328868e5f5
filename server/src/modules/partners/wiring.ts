// The partners module's back-office services put together over one database (app.ts registers their routes).
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AuditService } from '../audit/service.ts';
import type { LedgerService } from '../ledger/service.ts';
import { PartnersAdmin } from './admin.ts';
import type { PartnersService } from './service.ts';
import { StatementsRepository } from './statements-repository.ts';
import { StatementsService } from './statements.ts';

export function partnersAdmin(
  db: Db,
  clock: Clock,
  partners: PartnersService,
  ledger: LedgerService,
  audit: AuditService,
) {
  const repo = partners.d.repo;
  const statements = new StatementsService({
    db,
    clock,
    repo: new StatementsRepository(db),
    partners: repo,
    ledger,
    audit,
  });
  return new PartnersAdmin({ db, clock, repo, statements, audit });
}
