-- Partners' revenue share (modules/partners, docs/payments.md "Revenue share"): the rules per agent and per venue,
-- the tax rate per country and the provider fee rates that make the net, what each settled rental moved on the
-- ledger, and the monthly statements built from those moves.

-- A partner's share: a percentage (basis points) of the net rental revenue, a fixed monthly fee, or both; per
-- currency, each from an effective time on (the rule of a rental is the one effective when it settles).
create table revenue_share_rules (
  id bigserial primary key,
  partner_type text not null check (partner_type in ('agent', 'venue')),
  partner_id text not null,
  currency char(3) not null,
  percent_bps integer not null default 0 check (percent_bps between 0 and 10000),
  monthly_fee bigint not null default 0 check (monthly_fee >= 0),
  effective_from timestamptz not null,
  created_at timestamptz not null,
  unique (partner_type, partner_id, currency, effective_from)
);

-- The tax included in rental prices, per country (the country of the venue's agent).
create table country_tax_rates (
  country char(2) primary key,
  rate_bps integer not null check (rate_bps between 0 and 10000),
  updated_at timestamptz not null
);

-- What a payment provider keeps of a captured rental charge (basis points of the gross).
create table provider_fee_rates (
  provider text primary key,
  rate_bps integer not null check (rate_bps between 0 and 10000),
  updated_at timestamptz not null
);

-- Per settled rental: the rates it settled with (kept, so that a later refund recomputes with the same ones) and
-- what the ledger holds for it now (each change is posted as the difference to these amounts).
create table rental_shares (
  order_id text primary key references orders(id),
  currency char(3) not null,
  venue_id text not null,
  agent_id text,
  provider text,
  tax_bps integer not null,
  fee_bps integer not null,
  venue_bps integer not null,
  agent_bps integer not null,
  gross bigint not null,
  refunded bigint not null,
  tax bigint not null,
  provider_fee bigint not null,
  venue_share bigint not null,
  agent_share bigint not null,
  settled_at timestamptz not null,
  updated_at timestamptz not null
);
create index rental_shares_venue on rental_shares (venue_id, settled_at);
create index rental_shares_agent on rental_shares (agent_id, settled_at) where agent_id is not null;

-- Monthly statements per partner and currency: issued once, never changed (a later correction is a line of the
-- next period's statement).
create table partner_statements (
  id bigserial primary key,
  partner_type text not null check (partner_type in ('agent', 'venue')),
  partner_id text not null,
  agent_id text,
  currency char(3) not null,
  period char(7) not null,                      -- YYYY-MM
  total bigint not null,
  issued_at timestamptz not null,
  unique (partner_type, partner_id, currency, period)
);

-- Every amount moved into (or out of) a partner's account: a rental's share or its change, or a monthly fee; the
-- statement that reported it (each move is on exactly one statement, claimed when the statement is issued).
create table partner_share_moves (
  id bigserial primary key,
  partner_type text not null check (partner_type in ('agent', 'venue')),
  partner_id text not null,
  currency char(3) not null,
  order_id text references orders(id),
  kind text not null check (kind in ('share', 'monthly_fee')),
  amount bigint not null,
  gross bigint not null default 0,
  refunded bigint not null default 0,
  provider_fee bigint not null default 0,
  tax bigint not null default 0,
  net bigint not null default 0,
  percent_bps integer not null default 0,
  transfer_id text not null,
  at timestamptz not null,
  statement_id bigint references partner_statements(id)
);
create index partner_share_moves_open on partner_share_moves (partner_type, partner_id, currency, at) where statement_id is null;
create index partner_share_moves_statement on partner_share_moves (statement_id);

-- An issued statement and the moves it reported do not change.
create function partner_statements_frozen() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'partner_statements' then
    raise exception 'an issued statement does not change';
  end if;
  if old.statement_id is not null then
    raise exception 'a move reported on a statement does not change';
  end if;
  if tg_op = 'DELETE' then
    return old;
  end if;
  return new;
end $$;
create trigger partner_statements_frozen before update or delete on partner_statements
  for each row execute function partner_statements_frozen();
create trigger partner_share_moves_frozen before update or delete on partner_share_moves
  for each row execute function partner_statements_frozen();
