-- The dashboard's running sums per venue and currency (modules/dashboard): for each day a venue has a row in
-- `dashboard_daily`, its totals from its first day up to and including that day. A range's totals per venue are then
-- two rows (the last at or before its end, minus the last before its start), whatever its length: the top venues of
-- 1 000 venues over 90 days read about 2 000 index entries instead of aggregating 30 000 to 90 000 venue-day rows.
-- `buckets` counts the venue's daily rows, so a venue "had figures in the range" exactly when its difference is > 0.
-- Kept by the same refresh as the other rollups, in the same transaction: each batch rewrites the rows of the venues
-- it touched from the earliest day it touched.
create table dashboard_venue_running (
  agent_id text not null,
  venue_id text not null,
  currency char(3) not null,
  day date not null,
  buckets integer not null,
  rentals bigint not null,
  rented_minutes bigint not null,
  revenue bigint not null,
  primary key (venue_id, currency, day)
);

insert into dashboard_venue_running (agent_id, venue_id, currency, day, buckets, rentals, rented_minutes, revenue)
select agent_id, venue_id, currency, day,
  count(*) over w, sum(rentals) over w, sum(rented_minutes) over w, sum(revenue) over w
  from dashboard_daily
window w as (partition by venue_id, currency order by day);

-- The power banks per agent and day: the platform's and an agent's fleet series read one row per agent and day
-- instead of one per venue. Written with the venues' counts of the day.
create table dashboard_agent_fleet_daily (
  agent_id text not null,
  day date not null,
  powerbanks integer not null,
  primary key (agent_id, day)
);
create index dashboard_agent_fleet_daily_day on dashboard_agent_fleet_daily (day);

insert into dashboard_agent_fleet_daily (agent_id, day, powerbanks)
select agent_id, day, sum(powerbanks) from dashboard_fleet_daily group by agent_id, day;
