-- saveCardFlag (Flutterwave's card form): the payer asked to save the card of this payment. Once the
-- provider reports it paid, its reusable card (Flutterwave's data.card.token) becomes a saved card, once.
alter table external_payments add column save_card boolean not null default false;
