-- The heartbeat's reconcile asks, for the power banks a cabinet lists, whether a return would close an order:
-- open ones have orders_powerbank_open; bought-out ones not yet returned get theirs, so the question is two index
-- lookups per power bank (a batch of heartbeats asks it for thousands at once) instead of a scan of every order.
create index orders_powerbank_bought_out on orders (powerbank_id) where bought_out_at is not null and returned_at is null;
