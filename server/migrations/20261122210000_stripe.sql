-- Stripe: saved cards on payments for off-session charges, hold expiry, provider customers, and
-- orders that owe money after a failed off-session deduction (payType FK).
alter table payments add column payment_method_ref text;
alter table payments add column customer_ref text;
-- A hold must be captured before this time or the card network releases it (Stripe: capture_before).
alter table payments add column capture_before timestamptz;
-- The amount refunded of a captured payment (a captured hold refunded down to the rent, state-5 refunds).
alter table payments add column refunded_amount bigint not null default 0;

-- One provider customer per user and provider account (Stripe customers are per account).
create table payment_customers (
  provider text not null,
  user_id bigint not null,
  customer_ref text not null,
  created_at timestamptz not null default now(),
  primary key (provider, user_id)
);

-- An order whose off-session deduction failed owes `debt` (minor units): the order list shows a pay button
-- (payType FK) until it is paid.
alter table orders add column debt bigint not null default 0;
alter table orders add column debt_paid_at timestamptz;
