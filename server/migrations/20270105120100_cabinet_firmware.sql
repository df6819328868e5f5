-- The firmware versions a cabinet last reported (the additive `firmware` of its status message; a vendor gateway
-- fills it from the family's own version report), kept for an operator.
alter table cabinets add column firmware text;
alter table cabinets add column firmware_at timestamptz;
