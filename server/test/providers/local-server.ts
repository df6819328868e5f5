// What every provider's test server shares: an HTTP server on a free port of 127.0.0.1 that hands each request to
// the provider's own `handle`, its address, and its stop.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export abstract class LocalServer {
  protected server!: Server;
  port = 0;

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<unknown>;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop() {
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** The request's whole body, as text. */
  protected async readBody(req: IncomingMessage) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString();
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }
}
