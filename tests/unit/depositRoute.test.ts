// Deposit routing and the BGN rule.
import { describe, expect, it } from 'vitest';
import { depositRoute } from '../../src/core/cabinet.ts';

describe('depositRoute', () => {
  it.each([
    ['XAF wallet covering deposit and overtime → borrow', { currency: 'XAF', yajin: 5000, overtimeAmount: 5000, userWallet: { pBalance: 5000 } }, 'borrow'],
    ['XAF wallet below the overtime amount, yajinChongzhi Y → confirm', { currency: 'XAF', yajin: 5000, overtimeAmount: 8000, userWallet: { pBalance: 6000 }, yajinChongzhi: 'Y' }, 'confirm'],
    ['EUR balance covering both → borrow', { currency: 'EUR', yajin: 25, overtimeAmount: 25, myyue: 30 }, 'borrow'],
    ['balance short, yajinChongzhi Y → confirm', { currency: 'EUR', yajin: 25, overtimeAmount: 25, myyue: 10, yajinChongzhi: 'Y' }, 'confirm'],
    ['balance short, yajinChongzhi N → balance too low', { currency: 'EUR', yajin: 25, overtimeAmount: 25, myyue: 10, yajinChongzhi: 'N' }, 'balanceLow'],
    ['NGN with the balance below the deposit → confirm', { currency: 'NGN', yajin: 2000, overtimeAmount: 0, myyue: 100 }, 'confirm'],
    ['BGN with deposit 0 → payment failure', { currency: 'BGN', yajin: 0, myyue: 100 }, 'paymentFail'],
    ['BGN with a deposit behaves as any currency', { currency: 'BGN', yajin: 20, overtimeAmount: 20, myyue: 20 }, 'borrow'],
    ['the wallet of the scan wins over myyue', { currency: 'EUR', yajin: 25, overtimeAmount: 25, myyue: 0, userWallet: { pBalance: 25 } }, 'borrow'],
  ] as const)('%s', (_name, c, route) => expect(depositRoute(c)).toBe(route));

  it('an agent id that always takes the deposit payment → confirm', () => {
    // pDailiId is a string on the wire (src/contract/cabinets.ts).
    const c = { currency: 'EUR', yajin: 25, overtimeAmount: 25, myyue: 0, yajinChongzhi: 'N', userWallet: { pBalance: 0, pDailiId: '42' } } as const;
    expect(depositRoute(c)).toBe('balanceLow');
    expect(depositRoute(c, ['42'])).toBe('confirm');
  });
});
