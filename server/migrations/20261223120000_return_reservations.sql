-- Return slot reservations (owned by cabinets, modules/cabinets/reservations.ts): a rider with a power bank out keeps
-- one empty slot of a cabinet for its return for a limited time. Stored, with the `slot-reserve` command that tells
-- the cabinet, before the rider is answered. 'held' until it expires (a job, and every read checks expires_at), the
-- return of that power bank uses it, or the rider cancels it. One held reservation per rider and per slot.
create table return_reservations (
  id text primary key,
  user_id bigint not null references users(id),
  order_id text not null,
  powerbank_id text not null,
  cabinet_id text not null references cabinets(id),
  slot integer not null,
  command_id text not null,
  state text not null check (state in ('held', 'used', 'expired', 'cancelled')),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  ended_at timestamptz
);
create unique index return_reservations_user_held on return_reservations (user_id) where state = 'held';
create unique index return_reservations_slot_held on return_reservations (cabinet_id, slot) where state = 'held';
create index return_reservations_powerbank_held on return_reservations (powerbank_id) where state = 'held';
create index return_reservations_user on return_reservations (user_id, created_at desc);
