-- What each provider payment was started for, written when the provider first answers that the customer must act
-- (3-D Secure, a provider's page, a phone prompt): its owner, its purpose and the amount and currency the server
-- computed. A payment finished at once has its payments row instead. Every resume is checked against both
-- (PaymentsService.resume): a payment serves the one purpose it was started for. Owned by payments.
create table payment_starts (
  provider text not null,
  provider_ref text not null,
  user_id bigint not null references users(id),
  purpose text not null,
  order_id text,                                 -- the order it pays, when the flow names one before the payment (a debt, a Wi-Fi order)
  amount bigint not null check (amount > 0),
  currency char(3) not null,
  created_at timestamptz not null,
  primary key (provider, provider_ref)
);
