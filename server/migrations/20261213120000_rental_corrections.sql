-- The support desk's corrections of a rental (a refund, …): one row per correction, made with its reason by a member
-- of staff, once per idempotency key the console sends (a replay answers the stored correction). The money itself
-- moves in the ledger and through the payments module; this row says who asked for what, and where it went.
create table rental_corrections (
  id text primary key,
  order_id text not null references orders(id),
  idempotency_key text not null,
  request_hash text not null,
  kind text not null check (kind in ('refund')),
  amount bigint not null check (amount > 0),
  currency char(3) not null,
  to_card bigint not null default 0 check (to_card >= 0),
  to_wallet bigint not null default 0 check (to_wallet >= 0),
  payment_id text,
  staff_id bigint,
  reason text not null,
  created_at timestamptz not null,
  unique (order_id, idempotency_key),
  check (to_card + to_wallet = amount)
);
create index rental_corrections_order on rental_corrections (order_id, created_at);
-- The desk's search: rentals by power bank, by cabinet and by time.
create index orders_powerbank on orders (powerbank_id, created_at desc) where powerbank_id is not null;
create index orders_cabinet on orders (cabinet_id, created_at desc);
create index orders_created on orders (created_at desc, id desc);
-- Riders found by phone (digits only, any formatting) and by e-mail (any case).
create index users_mobile_digits on users ((regexp_replace(mobile, '\D', '', 'g'))) where mobile is not null;
create index users_email_lower on users ((lower(email))) where email is not null;
-- Payments found by card (last 4 digits).
create index payments_card_last4 on payments (card_last4) where card_last4 is not null;
