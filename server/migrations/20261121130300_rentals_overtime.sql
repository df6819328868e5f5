-- Overtime buy-out, and at most one open order per power bank.
-- bought_out_at: set when the order was closed as bought out (overtime job, or the user bought the power bank).
alter table orders add column bought_out_at timestamptz;

-- A power bank is never on two open orders (renting or fault, not settled), whatever the code does.
create unique index orders_powerbank_one_open on orders (powerbank_id) where zujie in (1, 4) and not settled;
