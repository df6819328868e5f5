-- Powerly walking skeleton: venues, cabinets, users and sessions, ledger, payments, rentals, cabinet link, jobs.
-- Money: bigint minor units + ISO 4217 currency. Timestamps: timestamptz.

create table venues (
  id text primary key,
  name text not null,
  city text not null,
  address text not null,
  hours text not null,
  description text not null default '',
  logo_url text not null,
  lat double precision not null,
  lng double precision not null,
  currency char(3) not null,
  created_at timestamptz not null default now()
);

-- The venue's price strategy, in the operator contract's shape (amounts in minor units).
create table price_plans (
  venue_id text primary key references venues(id),
  kind smallint not null default 1,              -- pType: 1 unit price, 2 tiered
  unit_price bigint not null,                    -- pPrice
  unit_length integer not null,                  -- pPriceMinute: units of price_unit per charge unit
  price_unit smallint not null default 0,        -- 0 minute, 1 hour, 2 day
  free_minutes integer not null default 0,
  daily_cap bigint not null,
  deposit bigint not null,
  overtime_amount bigint not null,
  overtime_days integer not null,
  deposit_type smallint not null,                -- yajintype: 0 card pre-authorisation, 1 deposit in wallet
  tiers jsonb not null default '[]'
);

create table cabinets (
  id text primary key,                           -- the code printed on the cabinet, e.g. PWL-SH-001
  venue_id text not null references venues(id),
  slot_count integer not null,
  online boolean not null default false,
  last_seen_at timestamptz,
  inventory jsonb
);

create table powerbanks (
  id text primary key,
  state text not null check (state in ('in_cabinet', 'rented')),
  cabinet_id text references cabinets(id),
  slot integer,
  order_id text,
  unique (cabinet_id, slot)
);

create table users (
  id bigserial primary key,
  kind text not null check (kind in ('tourist', 'user')),
  name text not null,
  device_code text unique,
  currency char(3) not null default 'USD',
  email text,
  mobile text,
  created_at timestamptz not null default now()
);

create table sessions (
  token_hash text primary key,                   -- sha256 of the token; the token itself is never stored
  user_id bigint not null references users(id),
  created_at timestamptz not null,
  expires_at timestamptz not null
);

-- Ledger (TigerBeetle-style). Balances are kept in step with transfers in the same transaction.
create table ledger_accounts (
  id bigserial primary key,
  owner_type text not null,                      -- user | platform | provider
  owner_id text not null,
  kind text not null,                            -- wallet | deposit_hold | revenue | clearing
  currency char(3) not null,
  debits_pending bigint not null default 0,
  debits_posted bigint not null default 0,
  credits_pending bigint not null default 0,
  credits_posted bigint not null default 0,
  unique (owner_type, owner_id, kind, currency)
);

create table ledger_transfers (
  id text primary key,
  debit_account_id bigint not null references ledger_accounts(id),
  credit_account_id bigint not null references ledger_accounts(id),
  amount bigint not null check (amount >= 0),
  currency char(3) not null,
  flag text not null check (flag in ('posted', 'pending', 'post_pending', 'void_pending')),
  pending_id text references ledger_transfers(id),
  code text not null,                            -- why: deposit_topup, deposit_hold, rent, ...
  order_id text,
  created_at timestamptz not null,
  check ((flag in ('post_pending', 'void_pending')) = (pending_id is not null)),
  check (debit_account_id <> credit_account_id)
);
-- A pending transfer is resolved at most once.
create unique index ledger_transfers_one_resolution on ledger_transfers (pending_id) where pending_id is not null;

-- Payments: our side of the provider state machine.
create table payments (
  id text primary key,
  provider text not null,
  provider_ref text,
  user_id bigint not null references users(id),
  order_id text,
  purpose text not null,                         -- deposit_preauth | deposit_topup
  amount bigint not null,
  currency char(3) not null,
  status text not null,
  captured_amount bigint not null default 0,
  failure_code text,
  card_brand text,
  card_last4 text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create table payment_transitions (
  id bigserial primary key,
  payment_id text not null references payments(id),
  from_status text,
  to_status text not null,
  amount bigint,
  at timestamptz not null
);

-- The sandbox card provider's own records (what the card network would hold).
create table sandbox_tokens (
  id text primary key,
  public_key text not null,
  brand text not null,
  last4 text not null,
  exp_month integer not null,
  exp_year integer not null,
  outcome text not null,                         -- ok | card_declined | insufficient_funds
  created_at timestamptz not null,
  used_at timestamptz
);
create table sandbox_intents (
  id text primary key,
  token_id text not null references sandbox_tokens(id),
  amount bigint not null,
  currency char(3) not null,
  capture_method text not null,                  -- automatic | manual
  status text not null,
  amount_captured bigint not null default 0,
  amount_refunded bigint not null default 0,
  decline_code text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create table orders (
  id text primary key,
  user_id bigint not null references users(id),
  cabinet_id text not null references cabinets(id),
  venue_id text not null references venues(id),
  zujie smallint not null default 0,
  settled boolean not null default false,
  deposit_type smallint not null,
  currency char(3) not null,
  plan jsonb not null,                           -- the PricePlan snapshot at rent time (src/core/pricing.ts)
  wire_strategy jsonb not null,                  -- the same plan as the client saw it
  deposit bigint not null,
  hold_transfer_id text,
  payment_id text,
  powerbank_id text,
  slot integer,
  eject_command_id text,
  created_at timestamptz not null,
  borrowed_at timestamptz,
  returned_at timestamptz,
  return_cabinet_id text references cabinets(id),
  return_venue_name text,
  fee bigint,
  use_minutes integer,
  note text
);
create index orders_user on orders (user_id, created_at desc);
create index orders_powerbank_open on orders (powerbank_id) where zujie in (1, 4) and not settled;

create table idempotency_keys (
  user_id bigint not null references users(id),
  key text not null,
  request_hash text not null,
  state text not null check (state in ('started', 'done')),
  response_code integer,
  response_body jsonb,
  created_at timestamptz not null,
  primary key (user_id, key)
);

create table cabinet_commands (
  id text primary key,
  cabinet_id text not null references cabinets(id),
  order_id text,
  type text not null,
  payload jsonb not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  acked_at timestamptz,
  result text
);

-- Every cabinet event once: QoS 1 may deliver twice.
create table cabinet_events (
  id text primary key,
  cabinet_id text not null,
  type text not null,
  cabinet_ts timestamptz,
  payload jsonb not null,
  received_at timestamptz not null
);

create table jobs (
  id bigserial primary key,
  kind text not null,
  payload jsonb not null,
  run_at timestamptz not null,
  attempts integer not null default 0,
  locked_until timestamptz,
  done_at timestamptz,
  last_error text
);
create index jobs_due on jobs (run_at) where done_at is null;
