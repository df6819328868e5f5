-- Issue 3 follow-up: the token-less order detail (spec §2). An order's owner asks for a share link; its sign is
-- 32 random bytes (base64url), made once and kept, so the link works without a session and cannot be guessed
-- from the order id.
alter table orders add column share_sign text;
create unique index orders_share_sign on orders (share_sign) where share_sign is not null;
