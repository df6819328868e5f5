// A small S3-compatible server for tests, speaking the wire protocol the AWS SDK speaks (path-style addressing):
// PutObject (PUT /bucket/key → 200 with the ETag), GetObject (GET → the bytes with Content-Type, Content-Length,
// ETag; a missing key → 404 <Error><Code>NoSuchKey</Code>), DeleteObject (DELETE → 204, also for a missing key),
// an unknown bucket → 404 NoSuchBucket; every request must carry a Signature Version 4 Authorization header for
// the configured access key and an x-amz-content-sha256 that matches the body (else 403), as S3 requires.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3Object {
  bytes: Buffer;
  contentType: string;
  etag: string;
}

const xmlError = (res: ServerResponse, status: number, code: string, message: string, resource: string) => {
  res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': 'test' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><Resource>${resource}</Resource><RequestId>test</RequestId></Error>`,
  );
};

export class TestS3 {
  readonly objects = new Map<string, S3Object>();
  readonly requests: Array<{ method: string; path: string }> = [];
  private server?: Server;
  endpoint = '';

  constructor(
    readonly bucket: string,
    readonly accessKeyId = 'AKIATESTKEY',
    readonly secretAccessKey = 'test-secret',
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop() {
    await new Promise((r) => this.server?.close(r));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://s3.test');
    const [, bucket = '', ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    this.requests.push({ method: req.method ?? '', path: url.pathname });
    const auth = String(req.headers.authorization ?? '');
    if (
      !auth.startsWith(`AWS4-HMAC-SHA256 Credential=${this.accessKeyId}/`) ||
      !/SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/.test(auth)
    ) {
      return xmlError(res, 403, 'AccessDenied', 'Access Denied', url.pathname);
    }
    const declared = String(req.headers['x-amz-content-sha256'] ?? '');
    if (declared !== 'UNSIGNED-PAYLOAD' && declared !== createHash('sha256').update(body).digest('hex')) {
      return xmlError(
        res,
        400,
        'XAmzContentSHA256Mismatch',
        'The provided x-amz-content-sha256 header does not match what was computed.',
        url.pathname,
      );
    }
    if (bucket !== this.bucket)
      return xmlError(res, 404, 'NoSuchBucket', 'The specified bucket does not exist', `/${bucket}`);
    const id = `${bucket}/${key}`;
    if (req.method === 'PUT') {
      const etag = `"${createHash('md5').update(body).digest('hex')}"`;
      this.objects.set(id, {
        bytes: body,
        contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'),
        etag,
      });
      res.writeHead(200, { etag, 'x-amz-request-id': 'test' });
      return res.end();
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      const o = this.objects.get(id);
      if (!o) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.', `/${id}`);
      res.writeHead(200, {
        'content-type': o.contentType,
        'content-length': o.bytes.length,
        etag: o.etag,
        'last-modified': new Date(0).toUTCString(),
      });
      return res.end(req.method === 'GET' ? o.bytes : undefined);
    }
    if (req.method === 'DELETE') {
      this.objects.delete(id);
      res.writeHead(204, { 'x-amz-request-id': 'test' });
      return res.end();
    }
    return xmlError(
      res,
      405,
      'MethodNotAllowed',
      'The specified method is not allowed against this resource.',
      url.pathname,
    );
  }
}
