-- The embed (issue 6): agents with the exact origins allowed to frame the widget, and web-vitals reports
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
