// <powerly-rent qrcode="PWL-LIS-001" lang="pt-PT" api-base="https://powerly.example" agent="venue-1">
// A custom element for venue sites. Open shadow DOM with its styles inside; the rent flow runs in this
// element's own iframe (served by the Powerly server, framed only by the agent's allowed origins), so
// several elements on a page never share a session, a route or a message. The host listens for DOM events
// `ready`, `rented`, `returned`, `error` and `height` (detail: the event), which bubble out of the shadow root.
// A token the host already has can be set as a property (`el.token = …`), never as an attribute.
import { createRoot, type Root } from 'react-dom/client';
import { useEffect, useRef, useState } from 'react';
import { embed as enTexts } from '../locales/en-US.json';
import { mountWidget, type WidgetHandle } from './mount.ts';
import type { WidgetEvent } from './bridge.ts';
import { reportWebVitals } from '../src/platform/vitals.ts';
import { isLocale } from '../src/core/lang.ts';
import { useLatest } from '../src/ui/hooks.ts';
import css from './element.css?inline';

type Texts = typeof enTexts;
const SCRIPT_ORIGIN = new URL(import.meta.url).origin;
const textLoaders = import.meta.glob<Texts>(['../locales/*.json', '!../locales/en-US.json'], { import: 'embed' });

async function textsFor(lang: string | null): Promise<Texts> {
  const load = lang && isLocale(lang) ? textLoaders[`../locales/${lang}.json`] : undefined;
  return load ? load().catch(() => enTexts) : enTexts;
}

interface ShellProps {
  host: PowerlyRent;
  agent: string;
  widgetOrigin: string;
  qrcode: string;
  lang: string | null;
}

function Shell({ host, agent, widgetOrigin, qrcode, lang }: ShellProps) {
  const slot = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<'loading' | 'ready' | 'error'>('loading');
  const [texts, setTexts] = useState<Texts>(enTexts);

  useEffect(() => {
    void textsFor(lang).then(setTexts);
  }, [lang]);

  // The first qrcode and lang go into the mount; later ones go through the bridge (attributeChangedCallback).
  const latest = useLatest({ host, qrcode, lang });
  useEffect(() => {
    const { host, qrcode, lang } = latest.current;
    if (!slot.current) return;
    const handle = mountWidget(slot.current, {
      widgetOrigin, agent, qrcode: qrcode || undefined, lang: lang ?? undefined, token: host.pendingToken,
      title: enTexts.frameTitle,
      onEvent(e: WidgetEvent) {
        if (e.type === 'ready') setStatus('ready');
        if (e.type === 'error' && e.code === 'handshakeTimeout') setStatus('error');
        host.dispatchEvent(new CustomEvent(e.type, { detail: e, bubbles: true, composed: true }));
      },
    });
    host.handle = handle;
    return () => {
      handle.destroy();
      host.handle = undefined;
    };
    // A new agent or server remounts.
  }, [agent, widgetOrigin, latest]);

  useEffect(() => {
    host.handle?.iframe.setAttribute('title', texts.frameTitle);
  }, [texts, host]);

  return (
    <div className="powerly" part="container">
      {status !== 'ready' ? (
        <p className={status === 'error' ? 'status error' : 'status'} role={status === 'error' ? 'alert' : 'status'}>
          {status === 'error' ? texts.unavailable : texts.loading}
        </p>
      ) : null}
      <div ref={slot} />
    </div>
  );
}

class PowerlyRent extends HTMLElement {
  static observedAttributes = ['qrcode', 'lang', 'api-base', 'agent'];
  handle: WidgetHandle | undefined;
  pendingToken: string | undefined;
  private root: Root | undefined;

  set token(v: string) {
    this.pendingToken = v;
    this.handle?.setToken(v);
  }

  connectedCallback() {
    const shadow = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    if (!shadow.querySelector('style')) {
      const style = document.createElement('style');
      style.textContent = css;
      shadow.appendChild(style);
    }
    let mountPoint = shadow.querySelector('div[data-root]');
    if (!mountPoint) {
      mountPoint = document.createElement('div');
      mountPoint.setAttribute('data-root', '');
      shadow.appendChild(mountPoint);
    }
    this.root ??= createRoot(mountPoint);
    this.update();
  }

  disconnectedCallback() {
    this.root?.unmount();
    this.root = undefined;
  }

  attributeChangedCallback(name: string, previous: string | null, value: string | null) {
    if (!this.root || previous === value) return;
    // After mount the iframe keeps running; a changed cabinet or language travels as a bridge message
    // (queued into the handshake's init when the widget has not said hello yet).
    if (name === 'qrcode' && value) this.handle?.setQrcode(value);
    if (name === 'lang' && value && isLocale(value)) this.handle?.setLang(value);
    this.update();
  }

  private update() {
    const agent = this.getAttribute('agent') ?? '';
    let widgetOrigin = SCRIPT_ORIGIN;
    try {
      const base = this.getAttribute('api-base');
      if (base) widgetOrigin = new URL(base, location.href).origin;
    } catch {
      // keep the script's origin
    }
    this.root!.render(
      <Shell host={this} agent={agent} widgetOrigin={widgetOrigin} qrcode={this.getAttribute('qrcode') ?? ''} lang={this.getAttribute('lang')} />,
    );
  }
}

// Safe against double registration (two copies of the script, or a host that defines it first).
if (!customElements.get('powerly-rent')) {
  customElements.define('powerly-rent', PowerlyRent);
  reportWebVitals('element', `${SCRIPT_ORIGIN}/cdb-app-api/v1/app/embed/vitals`);
}

declare global {
  interface HTMLElementTagNameMap {
    'powerly-rent': PowerlyRent;
  }
}
