-- Live updates (modules/live): one-use tickets that open a server-sent event stream. EventSource cannot send the
-- session header, so the page trades its token for a ticket (60 s, one use) and puts that in the stream's URL.
create table live_tickets (
  ticket_hash text primary key,                  -- sha256 of the ticket; the ticket itself is never stored
  user_id bigint not null references users(id),
  expires_at timestamptz not null
);
create index live_tickets_expires on live_tickets (expires_at);
