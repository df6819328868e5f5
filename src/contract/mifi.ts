// Wi-Fi boxes and data packages (Mifi package / device / order, chargenow/mifi/*).
import { Type, type Static } from 'typebox';
import { Money } from './cabinets.ts';
import { CouponNo, PayResume, PaymentAction } from './payments.ts';
import { DateInput, EpochSeconds } from './dates.ts';

const Id = Type.String({ minLength: 1, maxLength: 64 });

/** POST chargenow/mifi/query: the operator's proxy; `url` names a catalogue call, `data` is its JSON text. */
export const MifiQueryBody = Type.Object({
  requestMethod: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
  url: Type.Union([Type.Literal('packagePage'), Type.Literal('regionList'), Type.Literal('packageDtlListBySkuId')]),
  data: Type.Optional(
    Type.String({
      maxLength: 2000,
      description:
        'JSON text of the call: packagePage {size, current, searchKeywords, sn}; packageDtlListBySkuId {skuId, country}',
    }),
  ),
});
export type MifiQueryBody = Static<typeof MifiQueryBody>;
/** The proxied answer: JSON text (packagePage: {records, total}; regionList: Region[]; packageDtlListBySkuId: Variant[]). */
export const MifiQueryResult = Type.String();

export const PackagePageData = Type.Object({
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  current: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  searchKeywords: Type.Optional(Type.String({ maxLength: 100 })),
  sn: Type.Optional(Type.String({ maxLength: 64 })),
  country: Type.Optional(Type.String({ maxLength: 2 })),
  region: Type.Optional(Type.String({ maxLength: 64 })),
  currency: Type.Optional(Type.String({ maxLength: 3 })),
});
export type PackagePageData = Static<typeof PackagePageData>;
export const VariantsData = Type.Object({
  skuId: Id,
  country: Type.Optional(Type.String({ maxLength: 2 })),
  currency: Type.Optional(Type.String({ maxLength: 3 })),
});

/**
 * Powerly extension: the package's own name in the rider's language and its plan, from which the screens name it
 * in that language (packageName stays the catalogue's SKU name).
 */
const NameParts = {
  name: Type.Optional(Type.String()),
  planKind: Type.Optional(Type.Union([Type.Literal('days'), Type.Literal('unlimited'), Type.Literal('mb')])),
  planValue: Type.Optional(Type.Integer()),
};
/** A catalogue entry (packagePage record). */
export const CatalogueItem = Type.Object({
  ...NameParts,
  skuId: Type.String(),
  packageName: Type.String(),
  text: Type.String(),
  isPackage: Type.Boolean(),
  Day: Type.Integer(),
  country: Type.String(),
  countryName: Type.String(),
  region: Type.String(),
  flagUrl: Type.String(),
  price: Money,
  currency: Type.String(),
  currencyName: Type.String(),
  timeZone: Type.String(),
});
export type CatalogueItem = Static<typeof CatalogueItem>;
export const CataloguePage = Type.Object({ records: Type.Array(CatalogueItem), total: Type.Integer() });
export type CataloguePage = Static<typeof CataloguePage>;
export const Region = Type.Object({
  id: Type.String(),
  name: Type.String(),
  flagUrl: Type.String(),
  countries: Type.Array(
    Type.Object({ code: Type.String(), name: Type.String(), flagUrl: Type.String(), timeZone: Type.String() }),
  ),
});
export type Region = Static<typeof Region>;
/** A package variant (packageDtlListBySkuId): the same SKU's plans and prices for one country. */
export const Variant = Type.Object({
  ...NameParts,
  skuId: Type.String(),
  skuPriceId: Type.String(),
  packageName: Type.String(),
  Day: Type.Integer(),
  isPackage: Type.Boolean(),
  price: Money,
  currency: Type.String(),
  currencyName: Type.String(),
  country: Type.String(),
  timeZoneList: Type.Array(Type.String()),
  depositAmount: Money,
});
export type Variant = Static<typeof Variant>;

/** A package of the user (Mifi package). */
export const MifiPackage = Type.Object({
  orderId: Type.String({ description: 'the package order id (mifiOrderId / pickOrderId)' }),
  buyOrderNo: Type.String(),
  skuId: Type.String(),
  packageName: Type.String(),
  Day: Type.Integer(),
  isPackage: Type.Boolean(),
  country: Type.String(),
  flagUrl: Type.String(),
  price: Money,
  packagePrice: Money,
  totalAmount: Money,
  depositAmount: Money,
  currency: Type.String(),
  currencyName: Type.String(),
  selectDays: Type.Integer(),
  reserverStartTime: Type.String(),
  reserverEndTime: Type.String(),
  timeZone: Type.String(),
  packageStatus: Type.Integer(),
  packageStatusTitle: Type.String(),
  deviceOrderStatus: Type.Integer(),
  productSendSn: Type.String(),
  pickUpOrderId: Type.String(),
  renewalOf: Type.String(),
  orderType: Type.Integer(),
  usedBytes: Type.Integer({ description: 'traffic used in the package period so far (bytes)' }),
});
export type MifiPackage = Static<typeof MifiPackage>;

export const MifiOrderListBody = Type.Object({
  current: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  isPicked: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
});
export type MifiOrderListBody = Static<typeof MifiOrderListBody>;
export const MifiOrderPage = Type.Object({ records: Type.Array(MifiPackage), total: Type.Integer() });
export type MifiOrderPage = Static<typeof MifiOrderPage>;

export const SubmitDtl = Type.Object({
  remark: Type.Optional(Type.String({ maxLength: 200 })),
  productSendSn: Type.Optional(Type.String({ maxLength: 64 })),
  productId: Type.Optional(Type.String({ maxLength: 64 })),
  productAmount: Type.Optional(Type.Number()),
  depositAmount: Type.Optional(Type.Number()),
  skuId: Type.Optional(Type.String({ maxLength: 64 })),
  skuPriceId: Type.Optional(Type.String({ maxLength: 64 })),
  packageName: Type.Optional(Type.String({ maxLength: 200 })),
  packagePrice: Type.Optional(Type.Number()),
  reserverStartTime: Type.Optional(DateInput()),
  reserverEndTime: Type.Optional(DateInput()),
  timeZoneList: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 10 })),
  selectDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
  pickUpOrderId: Type.Optional(Type.String({ maxLength: 64 })),
  mifiOrderId: Type.Optional(Type.String({ maxLength: 64 })),
});
export type SubmitDtl = Static<typeof SubmitDtl>;
/** The order of spec "Mifi order submit". */
export const MifiOrderSubmit = Type.Object({
  orderType: Type.Integer({ minimum: 0, maximum: 3 }),
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  totalAmount: Type.Number({ minimum: 0 }),
  orderRemark: Type.Optional(Type.String({ maxLength: 200 })),
  submitDtlDtoList: Type.Array(SubmitDtl, { minItems: 1, maxItems: 5 }),
});
export type MifiOrderSubmit = Static<typeof MifiOrderSubmit>;
/**
 * POST chargenow/mifi/rent (JSON): the order (spec "Mifi order submit") and its payment (payType mifi). With
 * `paymentIntent` (after `action`) the call resumes the payment of the order it was started for, and orderSubmit
 * may be left out (it is not read then).
 */
/**
 * What a package's paying call (rent, confirm) may add: a saved card to pay with (`cardId`), a coupon off the
 * packages' price (never off a box deposit),
 * and `useWallet` 1: the wallet's balance pays first and the method only the rest (the wallet alone when it covers it).
 */
const MifiPayExtras = {
  couponNo: Type.Optional(CouponNo),
  cardId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'a saved card (pId, cdb/user/card) of this user and agent instead of stripeToken',
    }),
  ),
  useWallet: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1, description: '1: the wallet pays what it can, the method the rest' }),
  ),
};
export const MifiRentBody = Type.Object({
  qrcode: Type.Optional(Type.String({ maxLength: 500 })),
  paymentId: Type.String({ minLength: 1, maxLength: 100 }),
  stripeToken: Type.Optional(Type.String({ maxLength: 200 })),
  ejectOrNot: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
  orderSubmit: Type.Optional(MifiOrderSubmit),
  ...MifiPayExtras,
  ...PayResume,
});
export type MifiRentBody = Static<typeof MifiRentBody>;
/**
 * Order result: orderStatus 0 = pending (paid, waiting for pickup or start), 33 = unpaid. With `action`
 * the order is made (33) and its payment waits for the customer (3-D Secure, a provider's page, a phone prompt):
 * they finish it, then the call is repeated with paymentIntent.
 */
export const MifiOrderResult = Type.Object({
  orderId: Type.String(),
  orderStatus: Type.Integer(),
  type: Type.String(),
  out_trade_no: Type.String(),
  pay_type: Type.String(),
  buyOrderNo: Type.String(),
  shebei: Type.String(),
  number: Type.Integer(),
  action: Type.Optional(PaymentAction),
});
export type MifiOrderResult = Static<typeof MifiOrderResult>;

export const MifiOrderIdQuery = Type.Object({ mifiOrderId: Id });
export const MifiOrderDetailQuery = Type.Object({
  orderId: Type.Optional(Id),
  sn: Type.Optional(Type.String({ maxLength: 64 })),
});
export const CheckPickUpResult = Type.Object({
  status: Type.Integer({ description: '0 waiting, 1 loading, 2 success, 9 failed (with pickUp_msg)' }),
  pickUp_msg: Type.Optional(Type.String()),
  productSendSn: Type.Optional(Type.String()),
});
export type CheckPickUpResult = Static<typeof CheckPickUpResult>;
export const PickupBody = Type.Object({ qrcode: Type.String({ minLength: 1, maxLength: 500 }), pickOrderId: Id });
export type PickupBody = Static<typeof PickupBody>;
export const BindBody = Type.Object({ sn: Type.String({ minLength: 1, maxLength: 64 }), mifiOrderId: Id });
export type BindBody = Static<typeof BindBody>;
export const OrderIdResult = Type.Object({ orderId: Type.String() });
export const TrafficBody = Type.Object({
  sn: Type.String({ minLength: 1, maxLength: 64 }),
  packageStartTime: EpochSeconds(),
  packageEndTime: EpochSeconds(),
});
export const TrafficResult = Type.Object({
  sn: Type.String(),
  totalUsage: Type.Integer({ description: 'bytes' }),
  onlineTimeDuration: Type.Integer({ description: 'seconds' }),
});
export type TrafficResult = Static<typeof TrafficResult>;
export const FlowUsageBody = Type.Object({ sn: Type.String({ minLength: 1, maxLength: 64 }) });
export const UsageRecord = Type.Object({
  packageUsedTotal: Type.Integer(),
  sn: Type.String(),
  packageUsageDtlList: Type.Array(
    Type.Object({
      startTime: Type.String(),
      endTime: Type.String(),
      totalUsage: Type.Integer(),
      onlineTimeDuration: Type.Integer(),
      packageName: Type.String(),
    }),
  ),
});
export type UsageRecord = Static<typeof UsageRecord>;
/** The Wi-Fi device detail (Mifi device). */
export const MifiDevice = Type.Object({
  id: Type.String(),
  sn: Type.String(),
  dianliang: Type.Integer({ description: 'battery %' }),
  online: Type.Boolean(),
  deviceJson: Type.Object({
    wifiSSID: Type.String(),
    wifiPassword: Type.String(),
    lastKnownVsimSignalStrength: Type.Integer(),
  }),
  packageDtlList: Type.Array(MifiPackage),
  typeName: Type.String(),
  depositAmount: Money,
  currency: Type.String(),
});
export type MifiDevice = Static<typeof MifiDevice>;
export const CancelBody = Type.Object({ mifiOrderId: Id });
/** POST chargenow/mifi/confirm: pays an unpaid (33) package order again ("continue payment", payType mifi). */
export const MifiConfirmBody = Type.Object({
  mifiOrderId: Id,
  paymentId: Type.String({ minLength: 1, maxLength: 100 }),
  stripeToken: Type.Optional(Type.String({ maxLength: 200 })),
  ...MifiPayExtras,
  ...PayResume,
});
export type MifiConfirmBody = Static<typeof MifiConfirmBody>;
/**
 * POST chargenow/mifi/cabinetDisposit: the box deposit for a package bought without a device (deviceOrderStatus 0 → 5):
 * from the wallet (paymentId `wallet`), held by a method that can hold, else paid into the wallet and held there.
 */
export const DepositBody = Type.Object({
  mifiOrderId: Id,
  paymentId: Type.String({ minLength: 1, maxLength: 100 }),
  stripeToken: Type.Optional(Type.String({ maxLength: 200 })),
  qrcode: Type.Optional(Type.String({ maxLength: 500 })),
  ...PayResume,
});
export type DepositBody = Static<typeof DepositBody>;
/** The package after a paying call (confirm, cabinetDisposit); with `action` it is not paid yet: the customer finishes, then the call is repeated with paymentIntent. */
export const MifiPackagePaid = Type.Object({ ...MifiPackage.properties, action: Type.Optional(PaymentAction) });
export type MifiPackagePaid = Static<typeof MifiPackagePaid>;

/** POST chargenow/mifi/coupon: what a coupon takes off a package price (minor units) for this rider, before paying. */
export const MifiCouponBody = Type.Object({
  couponNo: CouponNo,
  currency: Type.String({ minLength: 3, maxLength: 3, pattern: '^[A-Za-z]{3}$' }),
  amount: Type.Integer({
    minimum: 1,
    maximum: 100_000_000,
    description: "the packages' price, minor units (a box deposit takes no coupon)",
  }),
});
export type MifiCouponBody = Static<typeof MifiCouponBody>;
export const MifiCouponResult = Type.Object({ discount: Type.Integer({ description: 'minor units off the amount' }) });
export type MifiCouponResult = Static<typeof MifiCouponResult>;
