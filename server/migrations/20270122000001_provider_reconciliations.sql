-- The daily reconciliation of each payment provider's settlements against the ledger (modules/payments/
-- reconciliation.ts): one row per provider and day, rewritten by a re-run (the job is idempotent per provider+day).
create table provider_reconciliations (
  provider text not null,
  day date not null,
  status text not null check (status in ('matched', 'mismatched', 'unavailable')),
  lines integer not null default 0,
  mismatches jsonb not null default '[]',
  ran_at timestamptz not null,
  primary key (provider, day)
);
