-- What became of a deposit top-up whose rental never started (the cabinet did not release a power bank): refunded
-- to the card or method it was charged to, after a short window in which the rider may keep it in the wallet
-- instead; or kept in the wallet (the rider's choice, spent meanwhile, or a method that takes no refunds).
-- A card hold is voided and needs no row: its payment's transitions say when. Owned by rentals
-- (modules/rentals/deposit-returns.ts).
create table deposit_returns (
  order_id text primary key references orders(id),
  user_id bigint not null references users(id),
  payment_id text not null references payments(id),
  amount bigint not null,
  currency char(3) not null,
  state text not null check (state in ('scheduled', 'refunded', 'kept', 'kept_spent', 'kept_unrefundable')),
  -- scheduled: when the refund is made; otherwise when it was made or the money was kept.
  at timestamptz not null,
  -- The part refunded (less than amount when some of it was spent meanwhile).
  refunded_amount bigint not null default 0,
  job_id bigint,
  created_at timestamptz not null
);
create index deposit_returns_user on deposit_returns (user_id);
