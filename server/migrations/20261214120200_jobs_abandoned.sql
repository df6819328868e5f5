-- A dead job an operator gave up on (back office or npm run jobs:dead): done without running, with who did it (the
-- reason is in the audit log). It no longer counts as dead; retention sweeps it as any finished job.
alter table jobs add column abandoned_at timestamptz;
alter table jobs add column abandoned_by text;
