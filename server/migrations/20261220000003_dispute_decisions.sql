-- The desk's decision on a dispute: who decided it (their id and e-mail as they were) and the evidence note they kept (for the desk; the rider sees
-- `message`).
alter table disputes add column decided_by bigint references staff(id);
alter table disputes add column decided_email text;
alter table disputes add column note text;
create index disputes_state on disputes (state, created_at, id);
