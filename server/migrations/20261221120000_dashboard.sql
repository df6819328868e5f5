-- The dashboard's summaries (modules/dashboard, docs/operations.md "Dashboard"): the back office reads its figures
-- from these, never from a scan of the rentals.
--
-- How they stay in step: every change to `orders` marks the buckets (venue, UTC day) it touches in
-- `dashboard_dirty`, by a statement trigger in the same transaction as the change (so no write path can forget it,
-- and a bulk insert marks each bucket once). The `dashboard.refresh` job recomputes each marked bucket from the
-- rentals (replacing its rows, never adding to them) and deletes exactly the marks it read, in one transaction:
-- a crash leaves the marks for the next run, and running it again recomputes the same figures.

create table dashboard_daily (
  agent_id text not null,
  venue_id text not null,
  day date not null,                            -- UTC
  currency char(3) not null,
  rentals integer not null default 0,           -- rentals started this day whose power bank left the cabinet
  failed_ejects integer not null default 0,     -- rentals started this day, cancelled because the eject failed or timed out
  returns integer not null default 0,           -- rentals that ended this day (returned, or bought out)
  returns_elsewhere integer not null default 0, -- of those, returned at another venue's cabinet
  revenue bigint not null default 0,            -- the rent of the rentals that ended this day, in minor units
  rented_minutes bigint not null default 0,     -- the billed minutes of the rentals that ended this day
  primary key (venue_id, day, currency)
);
create index dashboard_daily_agent on dashboard_daily (agent_id, day);
create index dashboard_daily_day on dashboard_daily (day);

-- The fleet behind utilisation: each refresh writes today's cabinets and power banks per venue (a past day keeps
-- the last count taken on it).
create table dashboard_fleet_daily (
  agent_id text not null,
  venue_id text not null,
  day date not null,
  cabinets integer not null,
  powerbanks integer not null,
  primary key (venue_id, day)
);
create index dashboard_fleet_daily_agent on dashboard_fleet_daily (agent_id, day);
create index dashboard_fleet_daily_day on dashboard_fleet_daily (day);

-- Buckets to recompute: append-only marks (no unique key, so concurrent rentals never wait on each other's mark).
create table dashboard_dirty (
  id bigserial primary key,
  venue_id text not null,
  day date not null
);

-- When the summaries were last recomputed (one row).
create table dashboard_state (
  id boolean primary key default true check (id),
  refreshed_at timestamptz
);
insert into dashboard_state (id, refreshed_at) values (true, null);

-- The rentals' indexes the recomputation reads a bucket by (a started day, an ended day).
create index orders_venue_created on orders (venue_id, created_at);
create index orders_venue_ended on orders (venue_id, (coalesce(returned_at, bought_out_at))) where coalesce(returned_at, bought_out_at) is not null;

create function dashboard_mark_orders() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into dashboard_dirty (venue_id, day)
    select venue_id, day from (
      select venue_id, (created_at at time zone 'UTC')::date as day from dashboard_new
      union
      select venue_id, (coalesce(returned_at, bought_out_at) at time zone 'UTC')::date from dashboard_new
        where coalesce(returned_at, bought_out_at) is not null
    ) b;
  elsif tg_op = 'UPDATE' then
    insert into dashboard_dirty (venue_id, day)
    select venue_id, day from (
      select venue_id, (created_at at time zone 'UTC')::date as day from dashboard_new
      union
      select venue_id, (coalesce(returned_at, bought_out_at) at time zone 'UTC')::date from dashboard_new
        where coalesce(returned_at, bought_out_at) is not null
      union
      select venue_id, (created_at at time zone 'UTC')::date from dashboard_old
      union
      select venue_id, (coalesce(returned_at, bought_out_at) at time zone 'UTC')::date from dashboard_old
        where coalesce(returned_at, bought_out_at) is not null
    ) b;
  else
    insert into dashboard_dirty (venue_id, day)
    select venue_id, day from (
      select venue_id, (created_at at time zone 'UTC')::date as day from dashboard_old
      union
      select venue_id, (coalesce(returned_at, bought_out_at) at time zone 'UTC')::date from dashboard_old
        where coalesce(returned_at, bought_out_at) is not null
    ) b;
  end if;
  return null;
end $$;

create trigger orders_dashboard_insert after insert on orders
  referencing new table as dashboard_new for each statement execute function dashboard_mark_orders();
create trigger orders_dashboard_update after update on orders
  referencing old table as dashboard_old new table as dashboard_new for each statement execute function dashboard_mark_orders();
create trigger orders_dashboard_delete after delete on orders
  referencing old table as dashboard_old for each statement execute function dashboard_mark_orders();

-- Rentals made before this migration: every bucket they touch is marked, so the first refresh computes them.
insert into dashboard_dirty (venue_id, day)
select venue_id, day from (
  select venue_id, (created_at at time zone 'UTC')::date as day from orders
  union
  select venue_id, (coalesce(returned_at, bought_out_at) at time zone 'UTC')::date from orders
    where coalesce(returned_at, bought_out_at) is not null
) b;
