-- The rent transaction's own statements in one call (rentals' repository, `start`): the rent path on this
-- machine spends its CPU per statement (a statement's round trip through node-postgres and a backend costs more
-- than the work it does), so the locks, the two refusal checks and the rows of a new rental are one function.
-- Each statement of a volatile PL/pgSQL function takes a new snapshot (read committed), so the checks after each
-- lock see what the lock's holder committed, as separate statements did.
--
-- The rules the checks apply live here once: what an open rental is (rental_open_count) and which slot an eject
-- may aim at (cabinet_free_slot); the repositories' reads call the same functions.

-- The user's rentals not yet over: in `open_states` (the rentals' ORDER_RULES open states) and not settled.
create or replace function rental_open_count(p_user_id bigint, p_open_states smallint[]) returns int
language plpgsql stable as $$
begin
  return (select count(*)::int from orders where user_id = p_user_id and zujie = any(p_open_states) and not settled);
end $$;

-- A slot of the cabinet holding a lendable power bank of `kind` that no unanswered, unexpired eject is aimed at
-- (each such eject reserves its slot); null when none is left.
create or replace function cabinet_free_slot(p_cabinet_id text, p_now timestamptz, p_kind text) returns int
language plpgsql stable as $$
begin
  return (
    select b.slot from powerbanks b
     where b.cabinet_id = p_cabinet_id and b.state = 'in_cabinet' and b.slot is not null and b.kind = p_kind
       and not exists (select 1 from cabinet_commands c
                        where c.cabinet_id = p_cabinet_id and c.result is null and c.expires_at > p_now
                          and (c.payload->>'slot') = b.slot::text)
     order by b.slot limit 1);
end $$;

-- A rental's start: locks the user (recording the currency as their last one: their rentals queue here, so the
-- open-rental rule holds for concurrent requests) and the cabinet (its ejects are decided one at a time, so two
-- people scanning for the last power bank get one order), then, only if the user has no open rental and a slot is
-- free, writes the order, its eject command (the payload given, with the slot) and its jobs (the timeout, and for
-- a card hold its expiry guard), marking the job `p_cancel_job` (the charge's orphan guard) done. Returns the open
-- rentals counted and the slot (null: none free); nothing is written unless open = 0 and the slot is not null.
create or replace function rental_start(
  p_user_id bigint, p_currency text, p_open_states smallint[], p_cabinet_id text, p_now timestamptz, p_kind text,
  p_order_id text, p_venue_id text, p_deposit_type smallint, p_plan jsonb, p_wire_strategy jsonb, p_deposit bigint,
  p_hold_transfer_id text, p_payment_id text, p_command_id text, p_command jsonb, p_expires_at timestamptz,
  p_job_kinds text[], p_job_payloads jsonb[], p_job_run_ats timestamptz[], p_cancel_job bigint,
  out open_count int, out slot int
) language plpgsql volatile as $$
begin
  update users set currency = p_currency where id = p_user_id;
  open_count := rental_open_count(p_user_id, p_open_states);
  perform 1 from cabinets where id = p_cabinet_id for update;
  slot := cabinet_free_slot(p_cabinet_id, p_now, p_kind);
  if open_count > 0 or slot is null then
    return;
  end if;
  insert into orders (id, user_id, cabinet_id, venue_id, deposit_type, currency, plan, wire_strategy, deposit,
                      hold_transfer_id, payment_id, eject_command_id, created_at, device_kind)
  values (p_order_id, p_user_id, p_cabinet_id, p_venue_id, p_deposit_type, p_currency, p_plan, p_wire_strategy,
          p_deposit, p_hold_transfer_id, p_payment_id, p_command_id, p_now, p_kind);
  insert into cabinet_commands (id, cabinet_id, order_id, type, payload, created_at, expires_at)
  values (p_command_id, p_cabinet_id, p_order_id, p_command->>'type', p_command || jsonb_build_object('slot', slot),
          p_now, p_expires_at);
  if p_cancel_job is not null then
    update jobs set done_at = p_now where id = p_cancel_job and done_at is null and dead_at is null;
  end if;
  insert into jobs (kind, payload, run_at)
  select k, p, r from unnest(p_job_kinds, p_job_payloads, p_job_run_ats) with ordinality as j(k, p, r, n) order by n;
end $$;
