// The ops API's CSV exports, written once: one field (RFC 4180, spreadsheet formulas neutralised), the export of a
// keyset search read page by page (constant memory, any size), and the response that streams it.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** One CSV field (RFC 4180), with spreadsheet formulas neutralised (a leading = + - @ is prefixed with '). */
export function csvField(v: unknown): string {
  let s =
    v == null
      ? ''
      : v instanceof Date
        ? v.toISOString()
        : typeof v === 'object'
          ? JSON.stringify(v)
          : String(v as string);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows per page of an export. */
export const EXPORT_PAGE = 500;

/**
 * The header line, then the search's pages in order: `page(after, limit)` reads the rows after the cursor,
 * `cursorOf` is a row's cursor, `lines` a page's rows as CSV records (their fields, in the header's order).
 */
export async function* csvPages<R>(o: {
  columns: readonly string[];
  page: (after: [string, string] | undefined, limit: number) => Promise<R[]>;
  cursorOf: (row: R) => [string, string];
  records: (rows: R[]) => Promise<unknown[][]> | unknown[][];
}): AsyncGenerator<string> {
  yield `${o.columns.join(',')}\r\n`;
  let after: [string, string] | undefined;
  for (;;) {
    const rows = await o.page(after, EXPORT_PAGE);
    if (!rows.length) return;
    yield (await o.records(rows)).map((r) => `${r.map(csvField).join(',')}\r\n`).join('');
    after = o.cursorOf(rows[rows.length - 1]!);
    if (rows.length < EXPORT_PAGE) return;
  }
}

/** Streams an export as `<name>-<date>.csv` (UTF-8, never cached). */
export function sendCsv(reply: FastifyReply, name: string, lines: AsyncIterable<string>) {
  return reply
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`)
    .header('Cache-Control', 'no-store')
    .send(Readable.from(lines));
}
