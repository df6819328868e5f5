-- Coupons: a percentage or a fixed amount (in one currency) off what a paying call charges, valid between two
-- times, limited per user and in total, for every agent or one agent (and optionally one venue), pausable.
create table coupons (
  id bigserial primary key,
  code text not null unique check (code ~ '^[A-Za-z0-9_-]{3,64}$'),
  kind text not null check (kind in ('percent', 'fixed')),
  percent integer check (percent between 1 and 100),
  amount bigint check (amount > 0),
  currency char(3),
  valid_from timestamptz not null,
  valid_to timestamptz not null,
  limit_per_user integer not null default 1 check (limit_per_user > 0),
  -- Null: no limit in total.
  limit_total integer check (limit_total > 0),
  -- Null: every agent (a platform coupon).
  agent_id text,
  venue_id text,
  paused boolean not null default false,
  created_at timestamptz not null,
  check ((kind = 'percent' and percent is not null and amount is null and currency is null)
      or (kind = 'fixed' and amount is not null and currency is not null and percent is null)),
  check (valid_to > valid_from),
  check (venue_id is null or agent_id is not null)
);
create index coupons_agent on coupons (agent_id, created_at desc);

-- A coupon's use by one charge: reserved before the provider is asked (counted against the limits), redeemed in
-- the unit of work that records the charge, released when the charge is declined, released or never finished.
create table coupon_redemptions (
  id bigserial primary key,
  coupon_id bigint not null references coupons(id),
  user_id bigint not null references users(id),
  order_id text not null,
  purpose text not null,
  gross bigint not null check (gross > 0),
  discount bigint not null check (discount > 0 and discount <= gross),
  currency char(3) not null,
  status text not null check (status in ('reserved', 'redeemed', 'released')),
  created_at timestamptz not null,
  settled_at timestamptz
);
-- One live coupon use per charged thing (an order's purpose).
create unique index coupon_redemptions_live on coupon_redemptions (order_id, purpose) where status <> 'released';
create index coupon_redemptions_use on coupon_redemptions (coupon_id, user_id) where status <> 'released';
