-- Flutterwave's live card form (docs/payments.md "Card data"): a payer token that carries card fields (sealed with
-- AES-256-GCM, never in clear) lives minutes, not forever; its sealed card is deleted when it is used, and an
-- expired token is swept (retention).
alter table external_method_tokens add column expires_at timestamptz;
