-- The embed: agents with the exact origins allowed to frame the widget, and web-vitals reports
-- from every front-end shape for the performance view (no token, no user, no query string in them).
create table agents (
  id text primary key,
  name text not null,
  origins text[] not null default '{}',
  created_at timestamptz not null default now()
);

create table web_vitals (
  id bigserial primary key,
  shape text not null,
  name text not null,
  value double precision not null,
  rating text not null,
  route text not null default '',
  created_at timestamptz not null default now()
);
create index web_vitals_shape_name on web_vitals (shape, name, created_at);

-- Signed one-time codes for in-app transports without an origin (WeChat/Alipay mini-programs, React Native):
-- a native host asks for a code with its user's session, passes it into the web-view page, and the page
-- redeems it once for a fresh session of the same user. Only the code's id (jti) is stored.
create table embed_codes (
  jti text primary key,
  agent_id text not null references agents(id),
  user_id bigint not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
