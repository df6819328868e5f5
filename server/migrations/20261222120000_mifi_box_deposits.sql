-- The Wi-Fi box deposit per currency (modules/mifi, docs/operations.md "The Wi-Fi line"): set by a platform-wide
-- member in the console, any ISO 4217 currency, in minor units; saved with optimistic concurrency (version). A
-- currency without a row falls back to the lowest Wi-Fi price plan deposit of the venues in that currency.
create table mifi_box_deposits (
  currency text primary key check (currency ~ '^[A-Z]{3}$'),
  amount bigint not null check (amount > 0),
  version integer not null default 1,
  updated_at timestamptz not null
);
