-- The `debitcard` payment type (docs/payments.md "Debit card"): the sandbox card provider keeps each test card's
-- funding type (credit, debit, prepaid), as a card network reports it (Stripe: PaymentMethod card.funding).
alter table sandbox_tokens add column funding text not null default 'credit';
