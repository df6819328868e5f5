-- Alerts (modules/alerts, docs/operations.md "Alerts"): rules with a threshold per agent, the alerts they raise
-- (one open alert per rule and subject until it is resolved), and the log of every delivery attempt.

create table alert_rules (
  id bigserial primary key,
  agent_id text not null,                       -- an agent, or '*': every agent
  kind text not null check (kind in ('cabinet_offline', 'low_stock', 'full', 'dead_jobs')),
  threshold integer not null check (threshold >= 0),
  emails text[] not null default '{}',
  phones text[] not null default '{}',
  webhook_url text,
  webhook_secret text,
  enabled boolean not null default true,
  created_at timestamptz not null,
  check ((webhook_url is null) = (webhook_secret is null))
);

create table alerts (
  id bigserial primary key,
  rule_id bigint not null references alert_rules(id),
  kind text not null,
  agent_id text not null,
  subject text not null,                        -- a cabinet id, or 'jobs'
  detail jsonb not null default '{}',
  state text not null check (state in ('open', 'acknowledged', 'resolved')),
  opened_at timestamptz not null,
  acknowledged_at timestamptz,
  acknowledged_by text,
  resolved_at timestamptz,
  resolved_by text
);
-- Never a storm: one alert per rule and subject until it is resolved.
create unique index alerts_one_open on alerts (rule_id, subject) where state <> 'resolved';
create index alerts_agent on alerts (agent_id, opened_at desc);

create table alert_deliveries (
  id bigserial primary key,
  alert_id bigint not null references alerts(id),
  event text not null check (event in ('opened', 'resolved')),
  channel text not null check (channel in ('email', 'sms', 'webhook')),
  target text not null,
  status text not null check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null,
  delivered_at timestamptz
);
create index alert_deliveries_alert on alert_deliveries (alert_id);
