-- Wi-Fi package orders take coupons and the wallet: what a coupon took off the order (and off each of its packages,
-- so that a cancelled package gives back only what was paid for it), and what each package's cancellation gave back
-- to the method the order was paid with (the rest of the order was paid from the wallet and goes back there).
alter table mifi_orders add column discount bigint not null default 0;
alter table mifi_packages add column discount bigint not null default 0;
alter table mifi_packages add column card_refund bigint not null default 0;
