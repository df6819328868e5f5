-- A cabinet's unanswered commands, found when it comes (back) online (modules/cabinets/service.ts `status`): the
-- link re-publishes them to that cabinet, which may have subscribed after the server's own reconnect re-published
-- them to nobody. Partial: only the few commands still waiting for their cabinet are indexed.
create index cabinet_commands_unanswered on cabinet_commands (cabinet_id, created_at) where acked_at is null and result is null;
