// `npm run bench:transfer`: what the app's first load costs on the wire, against a running server:
//   npm run build && PORT=8199 DEMO_PARTNER_PORT=off npm run serve      (another terminal)
//   npm run bench:transfer                                              (TRANSFER_BASE=http://127.0.0.1:8199 by default)
// It fetches index.html and every file of the app's first route — the HTML's scripts, module preloads and style
// sheets, and, when dist/size/app.modules.json is there (the build's first-load list, see embed/firstLoadPlugin.ts),
// the '/' screen's lazy chunks too — with Accept-Encoding: br, with gzip and with none, and prints the bytes
// received (body bytes as sent, before any decoding).
import { existsSync, readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';

const base = (process.env.TRANSFER_BASE ?? 'http://127.0.0.1:8199').replace(/\/$/, '');
const ENCODINGS = ['identity', 'gzip', 'br'] as const;
type Encoding = (typeof ENCODINGS)[number];

interface Sent {
  status: number;
  encoding: string;
  bytes: Buffer;
}

function fetchRaw(path: string, acceptEncoding: string): Promise<Sent> {
  const url = new URL(path, base + '/');
  const get = url.protocol === 'https:' ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          encoding: String(res.headers['content-encoding'] ?? ''),
          bytes: Buffer.concat(parts),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function main() {
  const index = await fetchRaw('/', '').catch((e: Error) => {
    throw new Error(
      `no server at ${base} (${e.message}): start one with \`npm run build && PORT=8199 DEMO_PARTNER_PORT=off npm run serve\``,
    );
  });
  if (index.status !== 200) throw new Error(`GET ${base}/ answered ${index.status}: is the front end built?`);
  const html = index.bytes.toString('utf8');
  const files = new Set<string>(['/']);
  for (const m of html.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="(\/[^"]+\.(?:js|css))"/g))
    if (m[1]) files.add(m[1]);
  const fromHtml = files.size - 1;
  const report = 'dist/size/app.modules.json';
  if (existsSync(report))
    for (const f of (JSON.parse(readFileSync(report, 'utf8')) as { files: string[] }).files) files.add(`/${f}`);

  type Sizes = Record<Encoding, number>;
  const rows: { path: string; sizes: Sizes }[] = [];
  for (const path of files) {
    const sizes: Sizes = { identity: 0, gzip: 0, br: 0 };
    for (const enc of ENCODINGS) {
      const res = await fetchRaw(path, enc === 'identity' ? '' : enc);
      if (res.status !== 200) throw new Error(`GET ${path} (${enc}) answered ${res.status}`);
      sizes[enc] = res.bytes.length;
      // Files under 1 kB have no compressed copy (the build's threshold); a bigger one should.
      if (enc !== 'identity' && res.encoding !== enc && sizes.identity >= 1024)
        console.warn(`  note: ${path} asked with ${enc}, sent ${res.encoding || 'uncompressed'}`);
    }
    rows.push({ path: path === '/' ? '/ (index.html)' : path, sizes });
  }

  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const total = (pick: (p: string) => boolean): Sizes => {
    const t: Sizes = { identity: 0, gzip: 0, br: 0 };
    for (const r of rows.filter((x) => pick(x.path))) for (const e of ENCODINGS) t[e] += r.sizes[e];
    return t;
  };
  const width = Math.max(...rows.map((r) => r.path.length), 24);
  const line = (name: string, sizes: Sizes) =>
    console.info(`${name.padEnd(width)}  ${ENCODINGS.map((e) => `${String(sizes[e]).padStart(8)} B`).join('  ')}`);
  console.info(
    `\nThe app's first load from ${base}: ${files.size} files (index.html, ${fromHtml} referenced by it, ${files.size - 1 - fromHtml} more from ${report})\n`,
  );
  console.info(`${'file'.padEnd(width)}  ${ENCODINGS.map((e) => e.padStart(10)).join('  ')}`);
  for (const r of rows) line(r.path, r.sizes);
  const all = total(() => true);
  const js = total((p) => p.endsWith('.js'));
  console.info('');
  line('total', all);
  line('  of which JavaScript', js);
  console.info(
    `\nidentity ${kib(all.identity)} → gzip ${kib(all.gzip)} → brotli ${kib(all.br)} (JavaScript ${kib(js.identity)} → ${kib(js.gzip)} → ${kib(js.br)})`,
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
