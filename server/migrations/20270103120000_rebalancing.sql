-- Rebalancing (modules/rebalancing, docs/operations.md "Rebalancing"): the moves of power banks field technicians
-- report done, one row each, never changed afterwards. The suggestions themselves are computed from the cabinets'
-- stock when asked; a move done counts as made until each of its cabinets reports after it.
create table rebalance_moves (
  id bigserial primary key,
  agent_id text not null,
  from_cabinet text not null references cabinets(id),
  to_cabinet text not null references cabinets(id),
  powerbanks integer not null check (powerbanks > 0),
  done_by text not null,
  done_at timestamptz not null,
  reason text not null,
  check (from_cabinet <> to_cabinet)
);
create index rebalance_moves_done on rebalance_moves (done_at desc, id desc);
create index rebalance_moves_agent on rebalance_moves (agent_id, done_at desc, id desc);
