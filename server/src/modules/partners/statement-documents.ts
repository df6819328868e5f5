// A statement as documents: CSV (one row per line, amounts as decimal text in the currency's units, headers in
// the reader's language) and PDF (pdfkit, with the reader's script embedded: DejaVu Sans for the Latin-script
// languages, Noto Sans SC for Chinese; pdfkit embeds only the glyphs a document uses). Each line names its rental.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { formatMoney, toDecimalText } from '#core/money.ts';
import { t, type Locale } from '../../lib/i18n.ts';
import { csvField } from '../../lib/csv.ts';
import type { StatementRow } from './repository.ts';
import type { LineRow } from './statements-repository.ts';

const require = createRequire(import.meta.url);
const LATIN = {
  body: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
};
const HAN = {
  body: require.resolve('@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf'),
  bold: require.resolve('@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf'),
};
/** The fonts' files, read once (the Han faces are about 10 MB each). */
const loaded = new Map<string, Buffer>();
const font = (path: string) => loaded.get(path) ?? loaded.set(path, readFileSync(path)).get(path)!;

const COLUMNS = [
  'line',
  'orderId',
  'settledAt',
  'at',
  'gross',
  'refunded',
  'providerFee',
  'tax',
  'net',
  'percent',
  'amount',
] as const;

const percent = (bps: number) => (bps / 100).toFixed(2);
const day = (d: Date | null) => (d ? new Date(d).toISOString().slice(0, 10) : '');

export function statementFileName(s: StatementRow, ext: 'csv' | 'pdf') {
  return `statement-${s.partner_type}-${s.partner_id}-${s.period}-${s.currency}.${ext}`.replace(/[^\w.-]/g, '_');
}

/** The statement as CSV (RFC 4180), the total last. */
export function statementCsv(s: StatementRow, lines: LineRow[], locale: Locale): string {
  const cur = s.currency;
  const head = COLUMNS.map((c) => csvField(t(locale, `partners.statement.${c}`))).join(',');
  const rows = lines.map((l) =>
    [
      t(locale, `partners.statement.kind.${l.line_kind}`),
      l.order_id ?? '',
      day(l.settled_at),
      new Date(l.at).toISOString(),
      toDecimalText(l.gross, cur),
      toDecimalText(l.refunded, cur),
      toDecimalText(l.provider_fee, cur),
      toDecimalText(l.tax, cur),
      toDecimalText(l.net, cur),
      percent(l.percent_bps),
      toDecimalText(l.amount, cur),
    ]
      .map(csvField)
      .join(','),
  );
  const total = [t(locale, 'partners.statement.total'), '', '', '', '', '', '', '', '', '', toDecimalText(s.total, cur)]
    .map(csvField)
    .join(',');
  return `${[head, ...rows, total].join('\r\n')}\r\n`;
}

/** The statement as a PDF document (A4, a table of its lines and the total). */
export function statementPdf(s: StatementRow, lines: LineRow[], locale: Locale): Promise<Buffer> {
  const faces = locale === 'zh-CN' ? HAN : LATIN;
  const L = (k: string, p?: Record<string, string | number>) => t(locale, `partners.statement.${k}`, p);
  const money = (v: number) => formatMoney(v, s.currency, locale);
  const doc = new PDFDocument({
    size: 'A4',
    margin: 40,
    info: { Title: L('title', { period: s.period }), Producer: 'Powerly' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('body', font(faces.body)).registerFont('bold', font(faces.bold));
  doc
    .font('bold')
    .fontSize(16)
    .text(L('title', { period: s.period }));
  doc
    .font('body')
    .fontSize(10)
    .text(`${L(`partner.${s.partner_type}`)}: ${s.partner_id}`)
    .text(`${L('currency')}: ${s.currency}`)
    .text(`${L('issuedAt')}: ${new Date(s.issued_at).toISOString()}`)
    .text(`${L('number')}: ${s.id}`)
    .moveDown();
  const widths = [70, 120, 70, 70, 70, 45, 70];
  const header = [L('line'), L('orderId'), L('settledAt'), L('gross'), L('net'), L('percent'), L('amount')];
  const row = (cells: string[], font: 'body' | 'bold') => {
    const y = doc.y;
    if (y > doc.page.height - 80) doc.addPage();
    let x = 40;
    const top = doc.y;
    doc.font(font).fontSize(8);
    cells.forEach((c, i) => {
      doc.text(c, x, top, {
        width: widths[i]! - 4,
        align: i >= 3 ? 'right' : 'left',
        lineBreak: false,
        ellipsis: true,
      });
      x += widths[i]!;
    });
    doc.x = 40;
    doc.y = top + 14;
  };
  row(header, 'bold');
  for (const l of lines) {
    row(
      [
        L(`kind.${l.line_kind}`),
        l.order_id ?? '',
        day(l.settled_at),
        money(l.gross),
        money(l.net),
        percent(l.percent_bps),
        money(l.amount),
      ],
      'body',
    );
  }
  doc.moveDown();
  row([L('total'), '', '', '', '', '', money(s.total)], 'bold');
  doc.end();
  return done;
}
