-- Wallet: wallets per user × currency × agent, withdrawals held until the provider's payout event,
-- provider webhook events deduplicated by id, saved cards, and the sandbox provider's payout / setup records.

-- A ledger account belongs to an agent (pDailiId): the same user has one wallet per currency per agent.
alter table ledger_accounts add column agent_id text not null default 'powerly';
alter table ledger_accounts drop constraint ledger_accounts_owner_type_owner_id_kind_currency_key;
alter table ledger_accounts add constraint ledger_accounts_owner_kind_currency_agent
  unique (owner_type, owner_id, kind, currency, agent_id);

-- A withdrawal (tixian): the amount is a pending ledger transfer until the payout is confirmed or rejected.
create table withdrawals (
  id text primary key,                           -- tixianOrderId
  user_id bigint not null references users(id),
  agent_id text not null,
  currency char(3) not null,
  amount bigint not null check (amount > 0),
  refund_type smallint not null,                 -- 0 back to the top-up cards (auto-audit), 1 payout channel, 2 manual (remark)
  channel_id text,                               -- paymentId of the payout channel
  account_data jsonb,
  remark text,
  status text not null check (status in ('pending', 'paid', 'rejected', 'manual_review')),
  hold_transfer_id text not null references ledger_transfers(id),
  provider text,
  provider_ref text,
  failure_code text,
  request_key text,                              -- the client's Idempotency-Key: one withdrawal per key, even after a crash
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (user_id, request_key)
);
create index withdrawals_user on withdrawals (user_id, created_at desc);

-- Provider webhook events, each applied once (providers deliver at least once).
create table provider_events (
  id text primary key,
  provider text not null,
  type text not null,
  payload jsonb not null,
  received_at timestamptz not null
);

create table saved_cards (
  id text primary key,
  user_id bigint not null references users(id),
  agent_id text not null,
  provider text not null,
  payment_method_ref text not null,              -- the provider's reusable payment method
  method_id text not null,                       -- pId of the payment method chosen when saving
  brand text not null,
  last4 text not null,
  currency char(3) not null,
  created_at timestamptz not null,
  removed_at timestamptz
);
create index saved_cards_user on saved_cards (user_id, agent_id) where removed_at is null;

-- A card being saved: the setup started with the provider, completed by the client's confirm.
create table card_setups (
  id text primary key,                           -- the provider's setup id
  user_id bigint not null references users(id),
  agent_id text not null,
  currency char(3) not null,
  method_id text not null,
  provider text not null,
  created_at timestamptz not null,
  card_id text
);

-- The sandbox provider's own records for setup intents, reusable payment methods and payouts.
create table sandbox_setup_intents (
  id text primary key,
  client_secret text not null,
  status text not null,                          -- requires_payment_method | succeeded
  payment_method_id text,
  created_at timestamptz not null
);
create table sandbox_payment_methods (
  id text primary key,
  token_id text not null references sandbox_tokens(id),
  created_at timestamptz not null,
  detached_at timestamptz
);
create table sandbox_payouts (
  id text primary key,
  amount bigint not null,
  currency char(3) not null,
  destination jsonb not null,
  status text not null,                          -- in_transit | paid | failed
  failure_code text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
