-- Safety: jobs get a fencing token and a terminal, visible `dead` state; top-up refunds are recorded;
-- per-installation secrets; per-cabinet broker credentials; a database-backed rate-limit store; captchas bound to
-- the client that asked for them.

-- A lease bumps `fence`; only the holder of the current fence may mark the job done or failed (a slow process
-- whose lease expired and was taken over cannot). A job that exhausted its attempts is dead (not done): an
-- operator sees it (npm run jobs:dead) and may retry it.
alter table jobs add column fence bigint not null default 0;
alter table jobs add column dead_at timestamptz;
create index jobs_dead on jobs (dead_at) where dead_at is not null;

-- Secrets generated on first start of an installation (sandbox webhook secret, sandbox embed signing key):
-- never constants in the source.
create table installation_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null
);

-- Broker credentials of each cabinet, issued by `npm run cabinet:credentials -- <cabinetId>`: the password is
-- stored only as a PBKDF2-SHA512 hash in Mosquitto's own password-file format ($7$iterations$salt$hash).
create table cabinet_credentials (
  cabinet_id text primary key,
  password_hash text not null,
  created_at timestamptz not null
);

-- Rate-limit counters shared by every API process (@fastify/rate-limit's store, one row per key and window).
create table rate_limits (
  key text primary key,
  hits integer not null,
  window_ends_at timestamptz not null
);
create index rate_limits_window on rate_limits (window_ends_at);

-- A captcha is answered once and only by the client it was issued to.
alter table captchas add column client text not null default '';
