-- Wi-Fi payments whose customer finishes them elsewhere (3-D Secure, a provider's page, a phone prompt): which
-- order or box deposit each pays, for how much and how (a charge, or a hold of the deposit). The app resumes one
-- with its reference (paymentIntent); only its user, for that order, with what the provider says it took.
create table mifi_payment_actions (
  provider text not null,
  ref text not null,
  user_id bigint not null references users(id),
  order_id text not null references mifi_orders(id),
  -- The box deposit of this package (cabinetDisposit); null: the order itself (rent, confirm).
  package_id text references mifi_packages(id),
  amount bigint not null check (amount > 0),
  currency char(3) not null,
  capture text not null check (capture in ('automatic', 'manual')),
  created_at timestamptz not null,
  primary key (provider, ref)
);
create index mifi_payment_actions_order on mifi_payment_actions (order_id);

-- A box deposit held by the payment method (a pre-authorisation) rather than from the wallet: its payment, and
-- whether the hold was captured before it lapsed (the deposit then sits in the user's deposit account until the
-- box comes back, and goes to the wallet then).
alter table mifi_packages add column deposit_payment_id text;
alter table mifi_packages add column deposit_captured boolean not null default false;
