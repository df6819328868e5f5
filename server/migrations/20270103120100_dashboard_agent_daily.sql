-- The dashboard's rollup per agent, UTC day and currency (modules/dashboard): the sums of `dashboard_daily` over an
-- agent's venues, so the platform's and an agent's figures per day read one row per agent and day instead of one
-- per venue (at 1 000 venues, a 90-day range is 900 rows, not 90 000). Kept by the same refresh, in the same
-- transaction: each batch recomputes the rows of the agents and days whose venue rows it replaced.
create table dashboard_agent_daily (
  agent_id text not null,
  day date not null,
  currency char(3) not null,
  rentals integer not null default 0,
  failed_ejects integer not null default 0,
  returns integer not null default 0,
  returns_elsewhere integer not null default 0,
  revenue bigint not null default 0,
  rented_minutes bigint not null default 0,
  primary key (agent_id, day, currency)
);
create index dashboard_agent_daily_day on dashboard_agent_daily (day);

insert into dashboard_agent_daily (agent_id, day, currency, rentals, failed_ejects, returns, returns_elsewhere, revenue, rented_minutes)
select agent_id, day, currency, sum(rentals), sum(failed_ejects), sum(returns), sum(returns_elsewhere), sum(revenue), sum(rented_minutes)
  from dashboard_daily group by agent_id, day, currency;

-- The venues' rollup per calendar month (UTC) and currency: the top venues of a range read its whole months here and
-- only the days at its two ends from `dashboard_daily`. Kept by the same refresh, like the agents' rollup.
create table dashboard_venue_monthly (
  agent_id text not null,
  venue_id text not null,
  month date not null,                          -- the month's first day
  currency char(3) not null,
  rentals integer not null default 0,
  rented_minutes bigint not null default 0,
  revenue bigint not null default 0,
  primary key (venue_id, month, currency)
);
create index dashboard_venue_monthly_month on dashboard_venue_monthly (month);
create index dashboard_venue_monthly_agent on dashboard_venue_monthly (agent_id, month);

insert into dashboard_venue_monthly (agent_id, venue_id, month, currency, rentals, rented_minutes, revenue)
select min(agent_id), venue_id, date_trunc('month', day)::date, currency, sum(rentals), sum(rented_minutes), sum(revenue)
  from dashboard_daily group by venue_id, date_trunc('month', day), currency;
