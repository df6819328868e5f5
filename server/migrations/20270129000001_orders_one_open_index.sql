-- An open rental's power bank had two indexes with the same key and the same condition: orders_powerbank_open and
-- the unique orders_powerbank_one_open (one open rental per power bank), which answers every read the first did.
-- Each rental that started wrote both; now the unique one alone.
drop index if exists orders_powerbank_open;
