// The scan ("Cabinet (scan result)", the scan flow): POST cdb/cabinet/checkisok.
import { Type, type Static } from 'typebox';

/** A money amount on the wire: a decimal in major units of the currency (converted at the edge, src/core/money.ts). */
export const Money = Type.Number({ description: 'major units of `currency`' });

/** The operator contract's priceStrategy (major-unit decimals). */
export const PriceStrategy = Type.Object({
  pType: Type.Integer(),
  pPrice: Money,
  pPriceMinute: Type.Integer(),
  priceUnit: Type.Integer({ description: '0 minute, 1 hour, 2 day' }),
  pFreeuseMinute: Type.Integer(),
  pDayAmount: Money,
  pDepositAmount: Money,
  pOvertimeAmount: Money,
  pOvertimeDay: Type.Integer(),
  priceStrategyDetail: Type.Array(
    Type.Object({
      pId: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
      pStartMinute: Type.Integer(),
      pEndMinute: Type.Integer(),
      pTotalFee: Money,
    }),
  ),
});
export type PriceStrategy = Static<typeof PriceStrategy>;

export const ScanQuery = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 500, description: 'the cabinet code or a code link containing qrcode=' }),
  id: Type.Optional(Type.String({ maxLength: 100 })),
  deviceType: Type.Optional(
    Type.Union([Type.Literal('cdb'), Type.Literal('station')], {
      description: 'Powerly extension: the device kind priced (default cdb, a power bank; station a power station)',
    }),
  ),
});
export type ScanQuery = Static<typeof ScanQuery>;

export const ScanResult = Type.Object({
  cabinetID: Type.String(),
  qrcode: Type.String(),
  shopid: Type.String(),
  shopname: Type.String(),
  shoplogo: Type.String(),
  shopAddress: Type.String(),
  shopTime: Type.String(),
  shopContent: Type.String(),
  currencyName: Type.String(),
  currency: Type.String(),
  jifei: Money,
  jifeiDanwei: Type.Integer(),
  mianfei: Type.Integer(),
  fengding: Money,
  yajin: Money,
  yajintype: Type.Integer({ description: '0 card pre-authorisation, 1 deposit paid into the wallet' }),
  myyue: Money,
  chongzhi: Type.Union([Type.Literal('Y'), Type.Literal('N')]),
  overtimeAmount: Money,
  zujieNum: Type.Integer(),
  haveBatteryCount: Type.Integer(),
  haveMifiBattery: Type.Boolean(),
  yajinChongzhi: Type.Union([Type.Literal('Y'), Type.Literal('N')]),
  online: Type.Boolean(),
  lat: Type.Number(),
  lng: Type.Number(),
  priceStrategy: PriceStrategy,
  freeSlots: Type.Integer({
    description: 'Powerly extension: empty slots of this cabinet (where a power bank can be returned)',
  }),
  userWallet: Type.Object({ pBalance: Money, pCurrencySymbol: Type.String(), pDailiId: Type.String() }),
  energyStorageFlag: Type.Optional(Type.Integer({ description: '1 when the cabinet lends power stations' })),
  haveStationCount: Type.Optional(Type.Integer({ description: 'Powerly extension: power stations ready to rent' })),
  mifiBatteryCount: Type.Optional(Type.Integer({ description: 'Wi-Fi boxes ready to pick up' })),
  mifiDeposit: Type.Optional(Money),
  deviceType: Type.Optional(
    Type.Union([Type.Literal('cdb'), Type.Literal('station')], {
      description: 'the kind this scan result prices (jifei, yajin, haveBatteryCount, priceStrategy)',
    }),
  ),
  typeName: Type.Optional(Type.String()),
  productId: Type.String({
    description:
      'the product this scan prices at this cabinet: the id of its price plan (the plan a rental started now is charged by)',
  }),
  country: Type.String({
    description:
      "Powerly extension: the cabinet's country, ISO 3166-1 alpha-2 (the venue's, else its agent's); empty when not known",
  }),
});
export type ScanResult = Static<typeof ScanResult>;
