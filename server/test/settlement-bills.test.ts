// The WeChat Pay and Alipay bill readers on their own (payments/settlements/): which China-time bills a UTC day
// needs, amounts in yuan to fen, and files that are refused rather than misread (a WeChat bill cut short, an Alipay
// row whose fields do not line up, a value that is not an amount).
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../src/modules/payments/methods/adapter.ts';
import { parseBusinessDetail } from '../src/modules/payments/settlements/alipay.ts';
import { chinaDays, chinaTime, fen } from '../src/modules/payments/settlements/china.ts';
import { parseTradeBill } from '../src/modules/payments/settlements/wechatpay.ts';

const WX_HEADER =
  '交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,充值券退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额,费率备注';
const wx = (f: string[]) => f.map((x) => '`' + x).join(',');
const payment = wx([
  '2026-11-21 18:00:00',
  'wx1',
  '1900009191',
  '0',
  '',
  '4200001',
  'P1',
  'o1',
  'JSAPI',
  'SUCCESS',
  'OTHERS',
  'CNY',
  '99.00',
  '0.00',
  '0',
  '0',
  '0.00',
  '0.00',
  '',
  '',
  '押金, 充电宝',
  '',
  '0.59400',
  '0.60%',
  '99.00',
  '0.00',
  '',
]);
const refund = wx([
  '2026-11-21 18:02:00',
  'wx1',
  '1900009191',
  '0',
  '',
  '4200001',
  'P1',
  'o1',
  'JSAPI',
  'REFUND',
  'OTHERS',
  'CNY',
  '0.00',
  '0.00',
  '5000001',
  'R1',
  '99.00',
  '0.00',
  'ORIGINAL',
  'SUCCESS',
  '押金, 充电宝',
  '',
  '-0.59400',
  '0.60%',
  '0.00',
  '99.00',
  '',
]);
const summary = (n: number) => [
  '总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额,申请退款总金额',
  wx([String(n), '99.00', '99.00', '0.00', '0.00000', '99.00', '99.00']),
];

describe('bills of China-time days', () => {
  it('a UTC day needs the bills of two China-time days; China time reads as an instant', () => {
    expect(chinaDays(new Date('2026-11-21T00:00:00Z'), new Date('2026-11-22T00:00:00Z'))).toEqual([
      '2026-11-21',
      '2026-11-22',
    ]);
    expect(chinaDays(new Date('2026-11-20T16:00:00Z'), new Date('2026-11-21T16:00:00Z'))).toEqual(['2026-11-21']);
    expect(chinaTime('2026-11-22 07:59:59')?.toISOString()).toBe('2026-11-21T23:59:59.000Z');
    expect(chinaTime('yesterday')).toBeUndefined();
    expect([fen('x', '12.50', 'a'), fen('x', '-0.12', 'a'), fen('x', '0.59400', 'a'), fen('x', '', 'a')]).toEqual([
      1250, -12, 59, 0,
    ]);
    expect(() => fen('x', '1,00', 'a')).toThrow(ProviderError);
  });
});

describe('a WeChat Pay trade bill', () => {
  it('reads a payment and its refund by column name (a comma inside a value is kept), with their fees', () => {
    const rows = parseTradeBill(['\uFEFF' + WX_HEADER, payment, refund, ...summary(2)].join('\r\n'));
    expect(rows.map((r) => r.line)).toEqual([
      { ref: 'P1', source: '4200001', type: 'charge', amount: 9900, fee: 59, currency: 'CNY' },
      { ref: 'P1', source: '5000001', type: 'refund', amount: -9900, fee: -59, currency: 'CNY' },
    ]);
    expect(rows[1]!.at.toISOString()).toBe('2026-11-21T10:02:00.000Z');
  });

  it('refuses a bill whose summary counts other rows than it has, or with no summary at all', () => {
    expect(() => parseTradeBill([WX_HEADER, payment, ...summary(2)].join('\n'))).toThrow(/1 rows, its summary says 2/);
    expect(() => parseTradeBill([WX_HEADER, payment].join('\n'))).toThrow(/no summary/);
  });
});

describe('an Alipay business detail file', () => {
  const header =
    '支付宝交易号,商户订单号,业务类型,商品名称,创建时间,完成时间,门店编号,门店名称,操作员,终端号,对方账户,订单金额（元）,商家实收（元）,支付宝红包（元）,集分宝（元）,支付宝优惠（元）,商家优惠（元）,券核销金额（元）,券名称,商家红包消费金额（元）,卡消费金额（元）,退款批次号/请求号,服务费（元）,分润（元）,备注';
  const row = (kind: string, amount: string, fee: string, batch = '', subject = '押金') =>
    [
      '2026112122001\t',
      'P2\t',
      kind,
      subject,
      '2026-11-21 18:00:00',
      '2026-11-21 18:00:05',
      '',
      '',
      '',
      '',
      'b***@x.com',
      amount,
      amount,
      '0.00',
      '0.00',
      '0.00',
      '0.00',
      '0.00',
      '',
      '0.00',
      '0.00',
      batch,
      fee,
      '0.00',
      '',
    ].join(',');

  it('reads payments and refunds between the comment lines, ids without their tab, fees as kept (+) or given back (-)', () => {
    const text = [
      '#支付宝业务明细查询',
      '#账号：[20881011221362410156]',
      header,
      row('交易', '12.34', '-0.07'),
      row('退款', '-12.34', '0.07', 'R2\t'),
      row('结算', '1.00', '0.00'),
      '#交易合计：1笔',
    ].join('\r\n');
    expect(parseBusinessDetail(text).map((r) => r.line)).toEqual([
      { ref: 'P2', source: '2026112122001', type: 'charge', amount: 1234, fee: 7, currency: 'CNY' },
      { ref: 'P2', source: '2026112122001/R2', type: 'refund', amount: -1234, fee: -7, currency: 'CNY' },
    ]);
  });

  it('refuses a row whose fields do not line up with the header (an unquoted comma) rather than misread it', () => {
    expect(() => parseBusinessDetail([header, row('交易', '12.34', '-0.07', '', '押金, 充电宝')].join('\n'))).toThrow(
      /fields, the header/,
    );
    expect(() => parseBusinessDetail('支付宝交易号,商户订单号\n1,2')).toThrow(/column/);
  });
});
