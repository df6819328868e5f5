-- The sandbox card provider's refunds, one row per idempotency key (modules/payments/sandbox.ts), as Stripe keeps a
-- refund per key: a payment may be refunded in several parts, each counted once however often its call is retried,
-- and never more in all than was captured. `sandbox_intents.amount_refunded` is their sum.
create table sandbox_refunds (
  intent_id text not null references sandbox_intents (id),
  idempotency_key text not null,
  amount bigint not null check (amount > 0),
  created_at timestamptz not null,
  primary key (intent_id, idempotency_key)
);
