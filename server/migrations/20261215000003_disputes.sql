-- "I returned it": a rider's claim that a power bank went back (where, about when), checked against the cabinets'
-- own records (owned by rentals, modules/rentals/claims.ts). A claim the records confirm settles the order at the
-- cabinet's time (state matched); one they do not opens a dispute for the desk (state open → accepted or rejected,
-- with a message the rider sees). One open dispute per order.
create table disputes (
  id bigserial primary key,
  order_id text not null references orders(id),
  user_id bigint not null references users(id),
  cabinet_id text not null,
  claimed_at timestamptz not null,
  state text not null check (state in ('matched', 'open', 'accepted', 'rejected')),
  -- What the records said: the matching return or anomaly, the cabinet's liveness at the time.
  evidence jsonb not null,
  message text,
  created_at timestamptz not null,
  decided_at timestamptz
);
create unique index disputes_one_open on disputes (order_id) where state = 'open';
create index disputes_user on disputes (user_id, created_at desc);
