-- Rental notices (owned by notify, modules/notify/notices.ts): the receipt after a return and the reminders before
-- each charge step of an open rental. One row per order and step (unique): scheduled when the rental starts, each
-- sent by its job at its time, at most once; a rental that ends cancels the rest. Deliveries are recorded per
-- channel, so a retried job sends only on the channels that did not take it yet.
create table rental_notices (
  id bigserial primary key,
  order_id text not null references orders(id),
  user_id bigint not null references users(id),
  -- receipt | free_end | cap | day | tier | buyout | hold
  kind text not null,
  -- The step: kind plus what tells it apart ('day:2', 'buyout:60'): unique per order.
  step text not null,
  -- When to send, and when the charge step itself happens.
  due_at timestamptz not null,
  event_at timestamptz not null,
  -- Minor units of the order's currency (the amount the step charges, or the receipt's fee).
  amount bigint not null,
  state text not null default 'scheduled' check (state in ('scheduled', 'sent', 'skipped', 'cancelled')),
  reason text,
  job_id bigint,
  sent_at timestamptz,
  created_at timestamptz not null,
  unique (order_id, step)
);
create index rental_notices_user on rental_notices (user_id, created_at desc);

create table notice_deliveries (
  notice_id bigint not null references rental_notices(id),
  channel text not null,
  at timestamptz not null,
  ref text,
  primary key (notice_id, channel)
);

-- What each rider wants to be told and how: channels, kinds turned off, quiet hours in their time zone, language.
create table notice_prefs (
  user_id bigint primary key references users(id),
  channels text[] not null default '{push,host}',
  kinds_off text[] not null default '{}',
  email text,
  phone text,
  locale text not null default 'en-US',
  time_zone text not null default 'UTC',
  -- Minutes after local midnight; null: no quiet hours.
  quiet_from smallint,
  quiet_to smallint,
  updated_at timestamptz not null
);

create table push_subscriptions (
  id bigserial primary key,
  user_id bigint not null references users(id),
  endpoint text not null unique,
  p256dh text not null,
  auth text not null,
  created_at timestamptz not null,
  -- The push service answered 404/410: the subscription is gone, never used again.
  gone_at timestamptz
);
create index push_subscriptions_user on push_subscriptions (user_id) where gone_at is null;

-- Per agent: how long before the buy-out riders are reminded (minutes), how long before other charge steps, and
-- how many days after a buy-out a returned power bank still gets the buy-out back (less the rent due).
create table agent_return_settings (
  agent_id text primary key references agents(id),
  buy_out_leads integer[] not null default '{1440,60}',
  step_lead integer not null default 5,
  buy_out_reversal_days integer not null default 30,
  updated_at timestamptz not null
);
