-- user/more: small per-user values the flows keep on the server under a key, each a JSON text validated
-- by its key's rule (today `monriBilling`: /MonriPay's billing details, src/core/monriBilling.ts). Owned by auth.
create table user_more (
  user_id bigint not null references users(id) on delete cascade,
  key text not null check (key in ('monriBilling')),
  value text not null check (length(value) <= 4000),
  updated_at timestamptz not null,
  primary key (user_id, key)
);
