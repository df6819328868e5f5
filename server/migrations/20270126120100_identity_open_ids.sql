-- What a WeChat or Alipay sign-in tells about the person besides the identity's subject: the app-scoped openid
-- (WeChat's openid, Alipay's open_id) and WeChat's unionid. The user answers them (p_openID, pUnionid, alUserId),
-- WeChat Pay's JSAPI needs the openid, and an openId sign-in finds the identity by it.
alter table user_identities add column open_id text;
alter table user_identities add column union_id text;
create index user_identities_open_id on user_identities (provider, open_id) where open_id is not null;
