import { Type } from 'typebox';
import { Envelope, ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { CabinetsService } from './service.ts';

const Money = Type.Number({ description: 'major units of `currency`' });
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
  priceStrategyDetail: Type.Array(Type.Object({ pId: Type.Optional(Type.Union([Type.Integer(), Type.String()])), pStartMinute: Type.Integer(), pEndMinute: Type.Integer(), pTotalFee: Money })),
});

const ScanResult = Type.Object({
  cabinetID: Type.String(), qrcode: Type.String(), shopid: Type.String(), shopname: Type.String(), shoplogo: Type.String(),
  shopAddress: Type.String(), shopTime: Type.String(), shopContent: Type.String(), currencyName: Type.String(), currency: Type.String(),
  jifei: Money, jifeiDanwei: Type.Integer(), mianfei: Type.Integer(), fengding: Money, yajin: Money,
  yajintype: Type.Integer({ description: '0 card pre-authorisation, 1 deposit paid into the wallet' }),
  myyue: Money, chongzhi: Type.Union([Type.Literal('Y'), Type.Literal('N')]), overtimeAmount: Money, zujieNum: Type.Integer(),
  haveBatteryCount: Type.Integer(), haveMifiBattery: Type.Boolean(), yajinChongzhi: Type.Union([Type.Literal('Y'), Type.Literal('N')]),
  online: Type.Boolean(), lat: Type.Number(), lng: Type.Number(), priceStrategy: PriceStrategy,
  userWallet: Type.Object({ pBalance: Money, pCurrencySymbol: Type.String(), pDailiId: Type.String() }),
});

export default async function cabinetRoutes(app: App, opts: { cabinets: CabinetsService }) {
  app.post('/cdb/cabinet/checkisok', {
    schema: {
      tags: ['cabinets'],
      summary: 'Scan: the cabinet, its venue and price in the venue currency, and the user wallet in that currency',
      querystring: Type.Object({
        url: Type.String({ minLength: 1, maxLength: 500, description: 'the cabinet code or a code link containing qrcode=' }),
        id: Type.Optional(Type.String({ maxLength: 100 })),
      }),
      response: { 200: Envelope(ScanResult) },
    },
    preHandler: app.requireUser,
  }, async (req) => ok(await opts.cabinets.scan(currentUser(req), req.query.url)));
}
