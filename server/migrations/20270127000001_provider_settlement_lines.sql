-- A provider's settlement records of a day as the reconciliation reads them (modules/payments/reconciliation.ts):
-- written page by page by one run (`run`), then compared with the ledger in one statement. A run's lines replace the
-- day's earlier runs' once it is stored (one run's lines per provider and day remain, to look at).
create table provider_settlement_lines (
  run text not null,
  seq integer not null,
  provider text not null,
  day date not null,
  ref text,
  source text not null,
  type text not null check (type in ('charge', 'refund')),
  amount bigint not null,
  fee bigint not null,
  currency text not null,
  primary key (run, seq)
);
create index provider_settlement_lines_day on provider_settlement_lines (provider, day);
