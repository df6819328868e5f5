-- Payment methods beyond the card provider: one row per payment started at a provider whose customer
-- finishes it elsewhere (a redirect, a phone prompt, an in-app bridge). Our `payments` row is written only when
-- the payment is taken into an order or a wallet; this row is what the customer's return and the provider's
-- notifications are matched against (owned by payments/methods/repository.ts).
create table external_payments (
  out_trade_no text primary key,
  provider text not null,
  pay_type text not null,
  provider_ref text not null,
  user_id bigint not null,
  amount bigint not null,
  currency text not null,
  capture text not null,
  state text not null,
  failure_code text,
  -- What the customer does next (a redirect, a form, an in-app bridge call, a phone prompt): replayed as it was.
  action jsonb not null,
  -- Where the customer goes back in the app (the confirm screen that resumes the payment).
  app_return_url text,
  -- What the provider appended to its return (PayPal token and PayerID, PayGate's checksum, …).
  return_params jsonb,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index external_payments_ref on external_payments (provider, provider_ref);

-- What the payer gave for such a method (phone, e-mail, in-app id, a card token of the provider's SDK), checked
-- and kept as a single-use token: the paying calls carry it where a card method carries its card token.
create table external_method_tokens (
  id text primary key,
  user_id bigint not null,
  provider text not null,
  pay_type text not null,
  details jsonb not null,
  created_at timestamptz not null,
  used_at timestamptz
);

-- The sandbox's model of such a provider (test mode): its side of each payment.
create table sandbox_method_payments (
  ref text primary key,
  pay_type text not null,
  out_trade_no text not null,
  amount bigint not null,
  currency text not null,
  capture text not null,
  phone text,
  state text not null,
  captured bigint not null default 0,
  refunded bigint not null default 0,
  failure_code text,
  created_at timestamptz not null,
  decide_at timestamptz
);
create unique index sandbox_method_payments_out on sandbox_method_payments (out_trade_no);
