-- A refund of one of our payments is recorded once per idempotency key: the provider refunds once per key, and two
-- processes running the same refund (a job whose lease was taken over during the provider call) must not both add
-- it to payments.refunded_amount. Owned by payments (PaymentsRepository.addRefund).
create table payment_refund_keys (
  payment_id text not null references payments(id),
  key text not null,
  amount bigint not null,
  at timestamptz not null,
  primary key (payment_id, key)
);
