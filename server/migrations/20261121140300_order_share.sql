-- The token-less order detail. An order's owner asks for a share link; its sign is
-- 32 random bytes (base64url), made once and kept, so the link works without a session and cannot be guessed
-- from the order id.
alter table orders add column share_sign text;
create unique index orders_share_sign on orders (share_sign) where share_sign is not null;

-- Order state 4 (fault): when the cabinet network reported the rented power bank faulty (a 'powerbank-fault'
-- event, or a 'returned' with a fault). The user is charged only for the time until then (docs/pricing.md).
alter table orders add column fault_at timestamptz;
