// Type-level: the flows' API types are the contract's (src/contract/), so a field the server changes fails tsc here
// and in every screen that reads it.
import { describe, expectTypeOf, it } from 'vitest';
import type { Static } from 'typebox';
import type { Order, OrderCheck, PublicOrder } from '../../src/api/orders.ts';
import type { Cabinet } from '../../src/api/cabinet.ts';
import type { Wallet } from '../../src/api/wallet.ts';
import type {
  Order as OrderSchema,
  OrderCheck as OrderCheckSchema,
  PublicOrder as PublicOrderSchema,
} from '../../src/contract/rentals.ts';
import type { ScanResult } from '../../src/contract/cabinets.ts';
import type { Wallet as WalletSchema } from '../../src/contract/wallet.ts';
import type { Envelope } from '../../src/contract/envelope.ts';
import type { getOrder } from '../../src/api/orders.ts';
import type { confirmPackage, payBoxDeposit, rentPackage } from '../../src/api/mifi.ts';
import type { DepositRentResult } from '../../src/contract/rentals.ts';
import type { RechargeResult } from '../../src/contract/wallet.ts';
import type { PaymentAction } from '../../src/contract/payments.ts';

describe('one contract', () => {
  it('the API types are Static<> of the server schemas', () => {
    expectTypeOf<Order>().toEqualTypeOf<Static<typeof OrderSchema>>();
    expectTypeOf<PublicOrder>().toEqualTypeOf<Static<typeof PublicOrderSchema>>();
    expectTypeOf<OrderCheck>().toEqualTypeOf<Static<typeof OrderCheckSchema>>();
    expectTypeOf<Cabinet>().toEqualTypeOf<ScanResult>();
    expectTypeOf<Wallet>().toEqualTypeOf<Static<typeof WalletSchema>>();
    expectTypeOf<ReturnType<typeof getOrder>>().resolves.toEqualTypeOf<Static<typeof OrderSchema>>();
    expectTypeOf<Static<ReturnType<typeof Envelope<typeof OrderSchema>>>['data']>().toEqualTypeOf<Order>();
  });

  it('every paying call answers one action shape (3-D Secure, a provider page, a phone prompt): the Wi-Fi calls too', () => {
    expectTypeOf<NonNullable<DepositRentResult['action']>>().toEqualTypeOf<PaymentAction>();
    expectTypeOf<NonNullable<RechargeResult['action']>>().toEqualTypeOf<PaymentAction>();
    expectTypeOf<NonNullable<Awaited<ReturnType<typeof rentPackage>>['action']>>().toEqualTypeOf<PaymentAction>();
    expectTypeOf<NonNullable<Awaited<ReturnType<typeof confirmPackage>>['action']>>().toEqualTypeOf<PaymentAction>();
    expectTypeOf<NonNullable<Awaited<ReturnType<typeof payBoxDeposit>>['action']>>().toEqualTypeOf<PaymentAction>();
  });

  it('the disagreements are settled the server’s way', () => {
    expectTypeOf<Order['pBorrowtime']>().toEqualTypeOf<string>();
    expectTypeOf<Order['pGhtime']>().toEqualTypeOf<string | null>();
    expectTypeOf<Cabinet['shopid']>().toEqualTypeOf<string>();
    expectTypeOf<Cabinet['userWallet']['pDailiId']>().toEqualTypeOf<string>();
    expectTypeOf<OrderCheck['number']>().toEqualTypeOf<number>();
  });
});
