-- Wi-Fi boxes and data packages: packages, boxes and orders, with the package statuses.
-- The catalogue: regions, countries (ISO code, time zone), SKUs with a plan, and a price per currency.
create table mifi_regions (
  id text primary key,
  name text not null,
  flag_url text not null default '',
  sort integer not null default 0
);
create table mifi_countries (
  code char(2) primary key,
  name text not null,
  region_id text not null references mifi_regions(id),
  time_zone text not null,
  flag_url text not null default ''
);
create table mifi_skus (
  id text primary key,
  region_id text not null references mifi_regions(id),
  country_code char(2) references mifi_countries(code),   -- null: the whole region
  name text not null,
  plan_kind text not null check (plan_kind in ('days', 'unlimited', 'mb')),
  plan_value integer not null default 0,                 -- N of NDays / NMB; 0 for Unlimited
  is_package boolean not null,                           -- a day-type package: its days are fixed (day stepper off)
  days integer not null check (days >= 1)                -- the package's days, or the default of a per-day SKU
);
-- Per currency: a day-type package's whole price, else the price of one day.
create table mifi_sku_prices (
  sku_id text not null references mifi_skus(id),
  currency char(3) not null,
  price bigint not null check (price >= 0),
  primary key (sku_id, currency)
);

-- An order (spec "Mifi order submit"): type 0 device + package, 1 renewal, 2 package only, 3 device only.
create table mifi_orders (
  id text primary key,
  user_id bigint not null references users(id),
  order_type smallint not null check (order_type in (0, 1, 2, 3)),
  currency char(3) not null,
  total bigint not null,
  deposit bigint not null default 0,
  status smallint not null,                               -- 33 unpaid, 0 paid, 88 cancelled
  payment_id text,
  paid_from text,                                         -- card | wallet
  cabinet_id text,
  created_at timestamptz not null,
  paid_at timestamptz
);
create index mifi_orders_user on mifi_orders (user_id, created_at desc);

-- One package of an order (Mifi package; status of §4: 0 unused, 1 to be activated, 2 activated,
-- 3 revoked, 4 refunded/returned, 9 ended, 33 unpaid, 88 cancelled). device_order_status: 0 no device ordered,
-- 5 a device paid and waiting to be picked up, 1 the device is with the user, 3 the device was returned.
create table mifi_packages (
  id text primary key,
  order_id text not null references mifi_orders(id),
  user_id bigint not null references users(id),
  sku_id text not null references mifi_skus(id),
  package_name text not null,
  country char(2),
  time_zone text not null,
  days integer not null,
  price bigint not null,
  deposit bigint not null default 0,
  currency char(3) not null,
  start_at timestamptz not null,
  end_at timestamptz not null,
  status smallint not null,
  device_order_status smallint not null default 0,
  device_sn text,
  renewal_of text references mifi_packages(id),
  pickup_state smallint not null default 0,               -- QR pickup (checkPickUp): 0 waiting, 1 loading, 2 done, 9 failed
  pickup_msg text,
  eject_command_id text,
  hold_transfer_id text,
  activated_at timestamptz,
  ended_at timestamptz,
  refunded_amount bigint not null default 0,
  created_at timestamptz not null
);
create index mifi_packages_user on mifi_packages (user_id, created_at desc);
create index mifi_packages_sn on mifi_packages (device_sn) where device_sn is not null;

-- A Wi-Fi box's network (shown on the package detail) and its telemetry over MQTT.
create table mifi_boxes (
  sn text primary key,
  ssid text not null,
  password text not null
);
create table mifi_telemetry (
  id bigserial primary key,
  sn text not null,
  at timestamptz not null,
  battery integer,
  signal integer,
  bytes_total bigint not null,                            -- the box's traffic counter since manufacture
  online boolean not null
);
create index mifi_telemetry_sn on mifi_telemetry (sn, at);
