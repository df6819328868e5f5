-- Sign-in: revocable sessions, linked identities (phone, Google, Apple, Facebook, WeChat, Alipay),
-- image captchas, one-time SMS codes and their send log (the rate limits read it, so they hold across
-- processes), and the sandbox SMS outbox.
alter table sessions add column revoked_at timestamptz;

create table user_identities (
  provider text not null,                        -- phone | google | apple | facebook | wechat | alipay
  subject text not null,                         -- phone digits with area code, or the provider's user id
  user_id bigint not null references users(id),
  created_at timestamptz not null,
  primary key (provider, subject)
);
create index user_identities_user on user_identities (user_id);

create table captchas (
  uuid text primary key,
  answer_hash text not null,                     -- sha256 of the lower-cased answer
  expires_at timestamptz not null
);

create table otp_codes (
  id bigserial primary key,
  mobile text not null,
  code_hash text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  attempts integer not null default 0,
  used_at timestamptz
);
create index otp_codes_mobile on otp_codes (mobile, created_at desc);

create table otp_sends (
  id bigserial primary key,
  mobile text not null,
  ip text not null,
  created_at timestamptz not null
);
create index otp_sends_mobile on otp_sends (mobile, created_at);
create index otp_sends_ip on otp_sends (ip, created_at);

create table sms_outbox (
  id bigserial primary key,
  provider text not null,
  to_number text not null,
  body text not null,
  provider_ref text,
  created_at timestamptz not null
);
