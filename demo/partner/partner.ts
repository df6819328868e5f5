// A partner website on another origin (npm start serves it on PORT+1): the one-tag loader from the Powerly
// server, a call queued before the loader has arrived, and a log of the widget's events.
// The Powerly server comes from the partner site's own configuration (./api.json, server/src/demo/partner-site.ts),
// by default the same host one port down — never from the URL (a crafted ?api= link would load anyone's script).
// ?api=none loads no widget (a bare host page for tests).
import { translate } from '../../src/i18n/index.ts';
import { heading, logEvents } from '../embedLog.ts';

const params = new URLSearchParams(location.search);
const fallback = `${location.protocol}//${location.hostname}:${Number(location.port) - 1}`;
const qrcode = params.get('qrcode') ?? 'PWL-LIS-001';

const main = document.getElementById('partner')!;
main.prepend(heading(translate('embedDemo.partnerTitle'), translate('embedDemo.partnerIntro')));
main.append(
  logEvents(
    main,
    [
      'ready',
      'rental.started',
      'eject.confirmed',
      'eject.failed',
      'rental.returned',
      'rental.notice',
      'payment.failed',
      'error',
      'resize',
    ].map((t) => `powerly:${t}`),
  ),
);

// The host's snippet: queue calls until the loader is in.
const w = window as unknown as { Powerly?: ((...a: unknown[]) => void) & { q?: unknown[][] } };
w.Powerly =
  w.Powerly ||
  Object.assign((...a: unknown[]) => (w.Powerly!.q = w.Powerly!.q || []).push(a), { q: [] as unknown[][] });
w.Powerly('mount', '#rent', {
  agent: 'demo-partner',
  qrcode,
  lang: params.get('lang') ?? undefined,
  appearance: { theme: 'light', variables: { colorPrimary: '#1a56db', borderRadius: '10px' } },
});

if (params.get('api') !== 'none') {
  void fetch('./api.json')
    .then(
      (r) => (r.ok ? (r.json() as Promise<{ api?: string | null }>) : {}),
      () => ({}),
    )
    .then((configured: { api?: string | null }) => {
      const script = document.createElement('script');
      script.type = 'module';
      script.src = `${configured.api ?? fallback}/embed/loader.js`;
      document.head.append(script);
    });
}
