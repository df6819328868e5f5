-- The support desk's other corrections of a rental beside refunds, one row each with its idempotency key: ending a
-- stuck rental (amount: the fee charged), waiving a debt (the debt), releasing a deposit hold (the deposit), reversing
-- a buy-out (what went back, to the card or the wallet). Only a refund's and a reversal's amount is split between
-- card and wallet; an ending that charged nothing records 0.
alter table rental_corrections drop constraint rental_corrections_kind_check;
alter table rental_corrections add constraint rental_corrections_kind_check check (kind in ('refund', 'end', 'waive', 'release', 'reverse'));
alter table rental_corrections drop constraint rental_corrections_amount_check;
alter table rental_corrections add constraint rental_corrections_amount_check check (amount > 0 or (kind <> 'refund' and amount >= 0));
alter table rental_corrections drop constraint rental_corrections_check;
alter table rental_corrections add constraint rental_corrections_split_check check (kind not in ('refund', 'reverse') or to_card + to_wallet = amount);
