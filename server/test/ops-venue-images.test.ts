// A venue's logo and banner through the ops API: what is not an image, or too large, is refused with a clear
// message in the operator's language and changes nothing; an image is stored through the media store (a local
// folder, or an S3-compatible service: here a local S3 test server on the wire), served back at its URL, audited,
// and saved against the version read.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3MediaStore } from '../src/modules/media/s3.ts';
import { LocalMediaStore, type MediaStore } from '../src/modules/media/store.ts';
import { build, venueFixture, type Built } from './helper.ts';
import { callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { TestS3 } from './providers/s3.ts';

const png = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: '#0b6e4f' } })
    .png()
    .toBuffer();

/** The same behaviour of every store: put, get back, missing is undefined, delete. */
async function storeContract(store: MediaStore) {
  const bytes = await png(4, 4);
  await store.put('venues/logo-abc.png', bytes, 'image/png');
  expect(await store.get('venues/logo-abc.png')).toEqual({ bytes: expect.anything(), contentType: 'image/png' });
  expect(Buffer.from((await store.get('venues/logo-abc.png'))!.bytes).equals(bytes)).toBe(true);
  expect(await store.get('venues/none.png')).toBeUndefined();
  await store.delete('venues/logo-abc.png');
  expect(await store.get('venues/logo-abc.png')).toBeUndefined();
}

describe('the media stores', () => {
  it('a local folder keeps, returns and deletes objects, and refuses a key that leaves it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'media-'));
    try {
      const store = new LocalMediaStore(dir);
      await storeContract(store);
      await expect(store.put('../escape.png', Buffer.from('x'), 'image/png')).rejects.toThrow(/not a media key/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an S3-compatible store does the same over the S3 wire protocol (signed requests, PutObject, GetObject, DeleteObject)', async () => {
    const s3 = await new TestS3('powerly-media').start();
    const store = new S3MediaStore({
      bucket: 'powerly-media',
      region: 'eu-central-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      await storeContract(store);
      expect(s3.requests.map((r) => r.method)).toEqual(['PUT', 'GET', 'GET', 'GET', 'DELETE', 'GET']);
      const wrongKey = new S3MediaStore({
        bucket: 'powerly-media',
        region: 'eu-central-1',
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: 'AKIAOTHER', secretAccessKey: 'x' },
      });
      await expect(wrongKey.put('venues/x.png', Buffer.from('x'), 'image/png')).rejects.toThrow(/Access Denied/);
      wrongKey.destroy();
    } finally {
      store.destroy();
      await s3.stop();
    }
  });
});

describe('venue images through the ops API', () => {
  let b: Built;
  let s3: TestS3;
  let consoles = new Map<Caller, OpsConsole>();
  const owner = () => consoles.get('platformOwner')!;
  const upload = async (c: OpsConsole, kind: string, body: Buffer, headers: Record<string, string> = {}) => {
    const etag = (await owner().call('GET', '/venues/V001')).headers.etag as string;
    return c.call('PUT', `/venues/V001/images/${kind}`, body, {
      'content-type': 'image/png',
      'if-match': etag,
      'x-reason': 'new%20logo',
      ...headers,
    });
  };

  beforeAll(async () => {
    s3 = await new TestS3('venue-media').start();
    b = await build({
      simulator: false,
      media: new S3MediaStore({
        bucket: 'venue-media',
        region: 'us-east-1',
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      }),
    });
    consoles = await callerConsoles(b);
    await b.app.powerly.fleet.venues.create(venueFixture('V001', 54.68, 25.28, { agentId: 'agent-a' }));
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await s3?.stop();
  });

  it("refuses what is not an image, or too large, in the operator's language, and changes nothing", async () => {
    const text = await upload(
      owner(),
      'logo',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      { lang: 'pt-PT' },
    );
    expect(text.statusCode).toBe(400);
    expect(text.json<{ message: string }>().message).toContain('não é uma imagem');
    const big = await upload(
      owner(),
      'logo',
      await sharp({ create: { width: 700, height: 700, channels: 3, background: '#123456' } })
        .png({ compressionLevel: 0 })
        .toBuffer(),
    );
    expect(big.statusCode).toBe(413);
    expect(big.json<{ message: string }>().message).toBe('This image is too large: at most 1024 KB.');
    expect((await upload(owner(), 'logo', await png(4, 4), { 'x-reason': '%E0%A4%A' })).statusCode).toBe(400); // not URL-encoded text
    const noReason = await owner().call('PUT', '/venues/V001/images/logo', await png(4, 4), {
      'content-type': 'image/png',
      'if-match': '"v1"',
    });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json<{ message: string }>().message).toContain('x-reason');
    expect((await owner().call('GET', '/venues/V001')).json<{ logoUrl: string; version: number }>()).toMatchObject({
      logoUrl: '',
      version: 1,
    });
    expect(s3.objects.size).toBe(0);
  });

  it('stores an image in the S3 store, serves it back at its URL, audits it, and refuses a stale save', async () => {
    const bytes = await png(64, 32);
    const etag = (await owner().call('GET', '/venues/V001')).headers.etag as string;
    const res = await upload(consoles.get('adminA')!, 'banner', bytes);
    expect(res.statusCode).toBe(200);
    const v = res.json<{ bannerUrl: string; version: number }>();
    expect(v.bannerUrl).toMatch(/^\/media\/venues\/banner-[0-9a-f]{20}\.png$/);
    expect([...s3.objects.keys()]).toEqual([`venue-media/${v.bannerUrl.slice('/media/'.length)}`]);
    const served = await b.app.inject({ method: 'GET', url: v.bannerUrl });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(bytes)).toBe(true);
    expect((await b.app.inject({ method: 'GET', url: '/media/venues/../../etc/passwd' })).statusCode).toBe(404);

    const stale = await owner().call('PUT', '/venues/V001/images/logo', bytes, {
      'content-type': 'image/png',
      'if-match': etag,
      'x-reason': 'other',
    });
    expect(stale.statusCode).toBe(409);
    expect((await owner().call('GET', '/venues/V001')).json<{ logoUrl: string }>().logoUrl).toBe('');
    const audit = (await owner().call('GET', '/audit?entity=venue&entityId=V001&action=venue.banner')).json<{
      items: Array<{ reason: string; after: { bannerUrl: string; width: number } }>;
    }>();
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({ reason: 'new logo', after: { bannerUrl: v.bannerUrl, width: 64 } });
  });

  it('the ops OpenAPI document describes the upload: the image types, the reason header', async () => {
    const doc = (await owner().call('GET', '/openapi.json')).json<{
      paths: Record<
        string,
        { put: { requestBody: { content: Record<string, unknown> }; parameters: Array<{ name: string; in: string }> } }
      >;
    }>();
    const put = doc.paths['/ops-api/v1/venues/{id}/images/{kind}']!.put;
    expect(Object.keys(put.requestBody.content)).toEqual(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
    expect(put.parameters).toContainEqual(expect.objectContaining({ name: 'x-reason', in: 'header' }));
  });

  it('only staff who may change the venue upload its images (another agent: 404, read-only: 403)', async () => {
    const bytes = await png(8, 8);
    expect((await upload(consoles.get('adminB')!, 'logo', bytes)).statusCode).toBe(404);
    expect((await upload(consoles.get('readOnlyA')!, 'logo', bytes)).statusCode).toBe(403);
    expect((await upload(consoles.get('technicianA')!, 'logo', bytes)).statusCode).toBe(200);
  });
});
