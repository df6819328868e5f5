-- The fleet set up by service operations (docs/operations.md "From an empty database to the first rental").

-- Agents: the country they operate in and the currencies they sell in (their payment methods and keys stay in
-- PAYMENT_METHODS: secrets are configuration, not data).
alter table agents
  add column country char(2),
  add column currencies text[] not null default '{}',
  add column version integer not null default 1,
  add column updated_at timestamptz;

-- Venues: names per language (the `name` column stays the default name the flows show), opening hours per weekday
-- with exceptions (the `hours` text is derived from them for the map), contacts, the agent, the state (only 'live'
-- venues are on the map), and a version for optimistic concurrency (every update names the version it read).
alter table venues
  add column names jsonb not null default '{}',
  add column opening_hours jsonb,
  add column contacts jsonb not null default '{}',
  add column agent_id text references agents(id),
  add column state text not null default 'live' check (state in ('draft', 'live', 'closed')),
  add column version integer not null default 1,
  add column updated_at timestamptz;
create index venues_agent on venues (agent_id) where agent_id is not null;

-- Price plans: per venue or per agent (then for the agent's venues in the plan's currency), each from an effective
-- time on. The plan of a rental is the one effective at its start, snapshot in orders.plan.
alter table price_plans drop constraint price_plans_pkey;
alter table price_plans
  add column id bigserial primary key,
  add column agent_id text references agents(id),
  add column currency char(3),
  add column effective_from timestamptz not null default '1970-01-01T00:00:00Z',
  add column created_at timestamptz not null default now();
alter table price_plans alter column venue_id drop not null;
update price_plans p set currency = v.currency from venues v where v.id = p.venue_id;
alter table price_plans alter column currency set not null;
alter table price_plans add constraint price_plans_owner check ((venue_id is null) <> (agent_id is null));
create unique index price_plans_venue_from on price_plans (venue_id, device_kind, effective_from) where venue_id is not null;
create unique index price_plans_agent_from on price_plans (agent_id, currency, device_kind, effective_from) where agent_id is not null;

-- Cabinets: the vendor family whose protocol the cabinet speaks, and registration before assignment to a venue.
alter table cabinets
  add column vendor text not null default 'powerly',
  add column registered_at timestamptz;
alter table cabinets alter column venue_id drop not null;
