// Deposit routing and the BGN rule.
import { describe, expect, it } from 'vitest';
import { depositRoute } from '../../src/core/cabinet.ts';

describe('depositRoute', () => {
  it.each([
    [
      'XAF wallet covering deposit and overtime → borrow',
      { currency: 'XAF', yajin: 5000, overtimeAmount: 5000, userWallet: { pBalance: 5000 } },
      'borrow',
    ],
    [
      'XAF wallet below the overtime amount, yajinChongzhi Y → confirm',
      { currency: 'XAF', yajin: 5000, overtimeAmount: 8000, userWallet: { pBalance: 6000 }, yajinChongzhi: 'Y' },
      'confirm',
    ],
    ['EUR balance covering both → borrow', { currency: 'EUR', yajin: 25, overtimeAmount: 25, myyue: 30 }, 'borrow'],
    [
      'balance short, yajinChongzhi Y → confirm',
      { currency: 'EUR', yajin: 25, overtimeAmount: 25, myyue: 10, yajinChongzhi: 'Y' },
      'confirm',
    ],
    [
      'balance short, yajinChongzhi N → balance too low',
      { currency: 'EUR', yajin: 25, overtimeAmount: 25, myyue: 10, yajinChongzhi: 'N' },
      'balanceLow',
    ],
    [
      'NGN with the balance below the deposit → confirm',
      { currency: 'NGN', yajin: 2000, overtimeAmount: 0, myyue: 100 },
      'confirm',
    ],
    ['BGN with deposit 0 → payment failure', { currency: 'BGN', yajin: 0, myyue: 100 }, 'paymentFail'],
    [
      'BGN with a deposit behaves as any currency',
      { currency: 'BGN', yajin: 20, overtimeAmount: 20, myyue: 20 },
      'borrow',
    ],
    [
      'the wallet of the scan wins over myyue',
      { currency: 'EUR', yajin: 25, overtimeAmount: 25, myyue: 0, userWallet: { pBalance: 25 } },
      'borrow',
    ],
  ] as const)('%s', (_name, c, route) => expect(depositRoute(c)).toBe(route));

  it("an agent whose deposits are always paid: the server's yajinChongzhi Y sends a wallet short of the overtime fee to confirm", () => {
    // The same wallet covers the deposit, not the overtime fee: too low elsewhere, paid through confirm at such an agent.
    const c = {
      currency: 'EUR',
      yajin: 25,
      overtimeAmount: 40,
      userWallet: { pBalance: 30, pDailiId: 'ag-1' },
    } as const;
    expect(depositRoute({ ...c, yajinChongzhi: 'N' })).toBe('balanceLow');
    expect(depositRoute({ ...c, yajinChongzhi: 'Y' })).toBe('confirm');
  });
});
