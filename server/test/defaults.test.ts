// The defaults a newcomer starts with: the sandbox listens on this machine only unless HOST says otherwise, a second
// checkout on another PORT gets its own embedded broker port, and the demo partner site sends the app's security
// headers.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMqttPort, loadConfig } from '../src/config.ts';
import { partnerSite } from '../src/demo/partner-site.ts';

describe('listening defaults', () => {
  it('with the sandbox on, the server listens on 127.0.0.1 unless HOST is set; without it, on every address', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ SANDBOX: 'on' }).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '192.168.1.20' }).host).toBe('192.168.1.20');
    expect(loadConfig({ SANDBOX: 'off' }).host).toBe('0.0.0.0');
    expect(loadConfig({ NODE_ENV: 'production' }).host).toBe('0.0.0.0');
  });

  it("the embedded broker's port follows PORT, so two checkouts side by side do not collide", () => {
    expect(loadConfig({}).mqttPort).toBe(18830);
    expect(loadConfig({ PORT: '8090' }).mqttPort).toBe(18840);
    expect(loadConfig({ PORT: '8090' }).mqttPort).not.toBe(loadConfig({}).mqttPort);
    expect(loadConfig({ PORT: '8090', MQTT_PORT: '1884' }).mqttPort).toBe(1884);
    expect(loadConfig({ MQTT_PORT: 'off' }).mqttPort).toBeNull();
    // An ephemeral HTTP port, or one whose broker port would be no port: an ephemeral broker port.
    expect(defaultMqttPort(0)).toBe(0);
    expect(defaultMqttPort(60_000)).toBe(0);
  });
});

describe('the demo partner site', () => {
  const dist = mkdtempSync(join(tmpdir(), 'powerly-partner-'));
  let site: Awaited<ReturnType<typeof partnerSite>>;
  let configured: Awaited<ReturnType<typeof partnerSite>>;

  beforeAll(async () => {
    mkdirSync(join(dist, 'demo/partner'), { recursive: true });
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(
      join(dist, 'demo/partner/index.html'),
      '<!doctype html><title>Partner</title><script type="module" src="/assets/p.js"></script>',
    );
    writeFileSync(join(dist, 'assets/p.js'), 'export {};');
    site = await partnerSite(dist);
    configured = await partnerSite(dist, 'https://rent.example.com/base/');
  });
  afterAll(async () => {
    await site.close();
    await configured.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const directive = (csp: string | undefined, name: string) => csp?.split(/;\s*/).find((d) => d.startsWith(`${name} `));

  it("sends the app's security headers on its pages, allowing only the Powerly server's origin beside its own", async () => {
    const res = await site.inject({ method: 'GET', url: '/demo/partner/', headers: { host: 'localhost:8081' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin-allow-popups');
    const csp = res.headers['content-security-policy'] as string;
    expect(directive(csp, 'frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(directive(csp, 'object-src')).toBe("object-src 'none'");
    // The loader's script and the widget's frame come from the Powerly server: the same host, one port down.
    expect(directive(csp, 'script-src')).toMatch(/^script-src 'self' .* http:\/\/localhost:8080$/);
    expect(directive(csp, 'frame-src')).toMatch(/ http:\/\/localhost:8080$/);
    expect(csp).not.toContain('unsafe-eval');
  });

  it('sends the same policy with a 304, which the browser applies to the page it reloads from its cache', async () => {
    const first = await site.inject({ method: 'GET', url: '/demo/partner/', headers: { host: 'localhost:8081' } });
    const res = await site.inject({
      method: 'GET',
      url: '/demo/partner/',
      headers: { host: 'localhost:8081', 'if-none-match': String(first.headers.etag) },
    });
    expect(res.statusCode).toBe(304);
    expect(directive(res.headers['content-security-policy'] as string, 'script-src')).toMatch(
      / http:\/\/localhost:8080$/,
    );
  });

  it('allows the configured Powerly server, whatever Host the page was asked under', async () => {
    const res = await configured.inject({
      method: 'GET',
      url: '/demo/partner/',
      headers: { host: 'evil.example:8081' },
    });
    const csp = res.headers['content-security-policy'] as string;
    expect(directive(csp, 'script-src')).toMatch(/ https:\/\/rent\.example\.com$/);
    expect(csp).not.toContain('evil.example');
    expect(directive(csp, 'frame-ancestors')).toBe("frame-ancestors 'none'");
  });

  it('a Host header that names no plain host adds nothing to the policy', async () => {
    const res = await site.inject({
      method: 'GET',
      url: '/demo/partner/',
      headers: { host: "x.test:8081 'unsafe-inline'" },
    });
    const csp = res.headers['content-security-policy'] as string;
    expect(directive(csp, 'script-src')).not.toContain('x.test');
    expect(directive(csp, 'script-src')).not.toContain("'unsafe-inline'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('sends nosniff and a policy on its other files too', async () => {
    const js = await site.inject({ method: 'GET', url: '/assets/p.js', headers: { host: 'localhost:8081' } });
    expect(js.statusCode).toBe(200);
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    expect(directive(js.headers['content-security-policy'] as string, 'frame-ancestors')).toBe(
      "frame-ancestors 'none'",
    );
    const config = await site.inject({
      method: 'GET',
      url: '/demo/partner/api.json',
      headers: { host: 'localhost:8081' },
    });
    expect(config.json()).toEqual({ api: null });
    expect(config.headers['x-content-type-options']).toBe('nosniff');
  });
});
