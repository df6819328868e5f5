// The Wise payout adapter against the Wise test server (test/providers/wise.ts): recipient, quote, transfer and
// funding from the balance; the customerTransactionId that makes a retried submit name the same transfer (funded
// once); refused accounts; a short balance; the transfer's state read back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeWise, ibanValid } from '../providers/wise.ts';
import { transactionUuid, WiseRail } from '../../src/modules/payments/payouts/wise.ts';
import { BankPayoutError, type BankPayoutInput } from '../../src/modules/payments/payouts/rail.ts';
import { ProviderError } from '../../src/modules/payments/methods/adapter.ts';

let wise: FakeWise;
let rail: WiseRail;
let seq = 0;
const IBAN = 'LT121000011101001000';

beforeAll(async () => {
  wise = await new FakeWise('wise-token-1', 1234567, { EUR: 1000 }).start();
  rail = new WiseRail({ apiToken: 'wise-token-1', profileId: '1234567', apiBase: wise.url });
});
afterAll(async () => {
  await wise.stop();
});

const input = (over: Partial<BankPayoutInput> = {}): BankPayoutInput => {
  const id = `TX${Date.now()}${++seq}`;
  return {
    withdrawalId: id,
    amount: 1250,
    currency: 'EUR',
    channel: 'payout-sepa',
    account: { accountHolder: 'Ana Silva', iban: IBAN, country: 'LT' },
    idempotencyKey: id,
    ...over,
  };
};

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe('Wise payouts', () => {
  it('pays a SEPA withdrawal from the EUR balance: one transfer with our reference, funded once, paid when sent', async () => {
    expect(ibanValid(IBAN)).toBe(true);
    const inp = input();
    const { ref } = await rail.submit(inp);
    const t = wise.transfers.get(Number(ref))!;
    expect(t).toMatchObject({
      status: 'processing',
      targetValue: 12.5,
      targetCurrency: 'EUR',
      details: { reference: inp.withdrawalId },
      customerTransactionId: transactionUuid(inp.withdrawalId),
    });
    expect(wise.recipients.get(t.targetAccount)).toMatchObject({
      type: 'iban',
      accountHolderName: 'Ana Silva',
      details: { iban: IBAN, legalType: 'PRIVATE' },
    });
    expect(wise.fundings.filter((f) => f.transferId === t.id)).toEqual([
      { transferId: t.id, amount: 12.5, currency: 'EUR' },
    ]);
    expect(await rail.status(ref)).toEqual({ state: 'processing' });
    wise.advance(ref, 'funds_converted');
    expect(await rail.status(ref)).toEqual({ state: 'processing' });
    wise.advance(ref, 'outgoing_payment_sent');
    expect(await rail.status(ref)).toEqual({ state: 'paid' });
    wise.advance(ref, 'bounced_back');
    expect(await rail.status(ref)).toEqual({ state: 'failed', failureCode: 'bounced_back' });
  });

  it('a submit repeated with the same key (a lost answer, a restart) names the same transfer and never funds it again', async () => {
    const inp = input();
    const first = await rail.submit(inp);
    const before = wise.fundings.length;
    const again = await rail.submit(inp);
    expect(again.ref).toBe(first.ref);
    expect(wise.fundings.length).toBe(before);
    expect(
      [...wise.transfers.values()].filter((t) => t.customerTransactionId === transactionUuid(inp.idempotencyKey)),
    ).toHaveLength(1);
    expect(transactionUuid('TX1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(transactionUuid('TX1')).toBe(transactionUuid('TX1'));
    expect(transactionUuid('TX2')).not.toBe(transactionUuid('TX1'));
  });

  it('an account Wise refuses (a bad IBAN, a one-word name) is invalid_account; nothing is created or funded', async () => {
    const transfers = wise.transfers.size;
    const bad = await rejection(
      rail.submit(input({ account: { accountHolder: 'Ana Silva', iban: 'LT121000011101001001', country: 'LT' } })),
    );
    expect(bad).toBeInstanceOf(BankPayoutError);
    expect(bad).toMatchObject({ kind: 'invalid_account', code: 'NOT_VALID' });
    expect(
      await rejection(rail.submit(input({ account: { accountHolder: 'A', iban: IBAN, country: 'LT' } }))),
    ).toMatchObject({ kind: 'invalid_account' });
    expect(wise.transfers.size).toBe(transfers);
  });

  it('a short balance leaves the transfer waiting for an operator (needs_operator, with its reference)', async () => {
    const e = await rejection(rail.submit(input({ amount: 5_000_000 })));
    expect(e).toMatchObject({ kind: 'needs_operator', code: 'transfer.insufficient_funds' });
    const ref = (e as BankPayoutError).ref!;
    expect(wise.transfers.get(Number(ref))?.status).toBe('incoming_payment_waiting');
  });

  it('pays only the channels it is given, in their currency; a wrong token is an error the job retries', async () => {
    expect(rail.pays('payout-sepa', 'EUR')).toBe(true);
    expect(rail.pays('payout-sepa', 'USD')).toBe(false);
    expect(rail.pays('payout-ach', 'USD')).toBe(false); // not listed (ACH needs the payee's address)
    expect(rail.pays('manual', 'CNY')).toBe(false);
    expect(new WiseRail({ apiToken: 't', profileId: '1', channels: ['payout-ach'] }).pays('payout-ach', 'USD')).toBe(
      true,
    );
    const wrong = new WiseRail({ apiToken: 'nope', profileId: '1234567', apiBase: wise.url });
    const e = await rejection(wrong.submit(input()));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e).not.toBeInstanceOf(BankPayoutError);
    expect((e as ProviderError).status).toBe(401);
  });
});
