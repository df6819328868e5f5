-- The speaker volume a cabinet last reported, in percent (the additive `volume` of its status message; the TCP
-- family's gateway fills it from the family's volume query), shown to an operator beside the volume command.
alter table cabinets add column volume smallint;
