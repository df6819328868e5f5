// <powerly-rent agent="venue-1" qrcode="PWL-LIS-001" lang="pt-PT" theme="dark" color-primary="#5b3cc4">
// A custom element for venue sites, in plain DOM (no framework on the host page). Open shadow DOM with its
// styles inside; the rent flow runs in this element's own iframe (served by the Powerly server, framed only
// by the agent's allowed origins), so several elements on a page never share a route or a message.
// Events (DOM, bubbling and composed; `event.detail` is the event object) and methods have the same names as
// the loader's (docs/embed.md, embed/types.d.ts). A session token the host already has is set as a property
// (`el.token = …`), never as an attribute.
import { mountWidget, SKELETON_CSS, type WidgetHandle } from './mount.ts';
import { APPEARANCE_KEYS, parseAppearance, type Appearance } from './protocol.ts';
import { isLocale } from '../src/core/lang.ts';
import { resolveOpen } from './host.ts';
import type { ElementTexts } from './texts/types.ts';

const SCRIPT_ORIGIN = new URL(import.meta.url).origin;
// Files beside this one, each an entry of its own (so no preload helper rides in the first load): the element's
// three texts in its language (element-texts-<lang>.js, a few hundred bytes), and the web vitals reporter
// (element-vitals.js), fetched once a widget is ready: what the host page fetches before `ready` stays small.
// (The script's URL through a variable: Vite rewrites `new URL(<template>, import.meta.url)` as an asset lookup.)
const SCRIPT_URL = import.meta.url;
const beside = <T>(name: string) => import(/* @vite-ignore */ new URL(`./${name}.js`, SCRIPT_URL).href) as Promise<T>;
let vitals = false;
function reportVitals() {
  if (vitals) return;
  vitals = true;
  beside<typeof import('./elementVitals.ts')>('element-vitals').then(
    (m) => m.reportWebVitals('element', `${SCRIPT_ORIGIN}/cdb-app-api/v1/app/embed/vitals`),
    () => undefined,
  );
}
/** color-primary → colorPrimary … */
const VARIABLE_ATTRS = APPEARANCE_KEYS.map((k) => [k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), k] as const);
const CSS = `:host{display:block;contain:layout style}:host([hidden]){display:none}.pw-error{margin:0;padding:12px 16px;min-height:44px;box-sizing:border-box;color:#8a1c1c;font:16px/1.4 system-ui,sans-serif}${SKELETON_CSS}`;

async function textsFor(lang: string | null): Promise<ElementTexts | null> {
  return beside<{ texts: ElementTexts }>(`element-texts-${lang && isLocale(lang) ? lang : 'en-US'}`).then(
    (m) => m.texts,
    () => null,
  );
}

class PowerlyRent extends HTMLElement {
  static observedAttributes = [
    'qrcode',
    'lang',
    'api-base',
    'agent',
    'theme',
    'height',
    ...VARIABLE_ATTRS.map(([a]) => a),
  ];
  handle: WidgetHandle | undefined;
  private pendingToken: string | undefined;
  private themeTimer = 0;

  set token(v: string) {
    this.pendingToken = v;
    this.handle?.setToken(v);
  }

  /** Moves the widget to a cabinet (a code or code link) or opens one of its routes ('/order', '/wallet' …). */
  open(target: string): void {
    const to = resolveOpen(target);
    if (!to) return this.fail('badRoute', `Not a route or cabinet code: ${String(target).slice(0, 80)}`);
    if (to.kind === 'route') this.handle?.open(to.route);
    else this.handle?.setQrcode(to.qrcode);
  }
  close(): void {
    this.handle?.close();
  }
  setLocale(lang: string): void {
    if (isLocale(lang)) this.setAttribute('lang', lang);
  }
  /** Replaces the appearance live ({theme, variables}); an invalid one is refused with an `error` event. */
  setTheme(appearance: Appearance): void {
    if (!this.handle?.setTheme(appearance)) this.fail('badAppearance', 'The appearance does not match its grammar.');
  }
  logout(): void {
    this.pendingToken = undefined;
    this.handle?.logout();
  }

  connectedCallback() {
    if (this.handle) return;
    const shadow = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    if (!shadow.querySelector('style')) {
      const style = document.createElement('style');
      style.textContent = CSS;
      shadow.appendChild(style);
    }
    this.mount();
  }

  disconnectedCallback() {
    this.handle?.destroy();
    this.handle = undefined;
  }

  attributeChangedCallback(name: string, previous: string | null, value: string | null) {
    if (!this.handle || previous === value) return;
    // After mount the iframe keeps running; a change travels as a bridge message (queued into the
    // handshake's init when the widget has not said hello yet).
    if (name === 'qrcode' && value) this.handle.setQrcode(value);
    else if (name === 'lang' && value && isLocale(value)) {
      this.handle.setLang(value);
      void this.label(value);
    } else if (name === 'agent' || name === 'api-base') {
      this.handle.destroy();
      this.mount();
    } else if (name !== 'height') {
      // Several attributes set in a row make one setTheme.
      clearTimeout(this.themeTimer);
      this.themeTimer = window.setTimeout(() => {
        const a = this.appearanceFromAttributes();
        if (a) this.setTheme(a);
        else this.fail('badAppearance', 'The appearance attributes do not match their grammar.');
      });
    }
  }

  private appearanceFromAttributes(): Appearance | null {
    const variables: Record<string, string> = {};
    for (const [attr, key] of VARIABLE_ATTRS) {
      const v = this.getAttribute(attr);
      if (v !== null) variables[key] = v;
    }
    const theme = this.getAttribute('theme');
    return parseAppearance({ ...(theme ? { theme } : {}), variables });
  }

  private fail(code: string, message: string) {
    this.dispatchEvent(
      new CustomEvent('error', { detail: { type: 'error', code, message }, bubbles: true, composed: true }),
    );
  }

  private mount() {
    const shadow = this.shadowRoot!;
    let widgetOrigin = SCRIPT_ORIGIN;
    try {
      const base = this.getAttribute('api-base');
      if (base) widgetOrigin = new URL(base, location.href).origin;
    } catch {
      // keep the script's origin
    }
    const appearance = this.appearanceFromAttributes();
    const lang = this.getAttribute('lang');
    const height = Number(this.getAttribute('height')) || undefined;
    this.handle = mountWidget(shadow, {
      widgetOrigin,
      agent: this.getAttribute('agent') ?? '',
      qrcode: this.getAttribute('qrcode') || undefined,
      lang: lang && isLocale(lang) ? lang : undefined,
      token: this.pendingToken,
      appearance: appearance ?? undefined,
      height,
      slot: this.id,
      onEvent: (e) => {
        if (e.type === 'error' && e.code === 'handshakeTimeout') this.showUnavailable(lang);
        if (e.type === 'ready') reportVitals();
        this.dispatchEvent(new CustomEvent(e.type, { detail: e, bubbles: true, composed: true }));
      },
    });
    if (!appearance)
      queueMicrotask(() => this.fail('badAppearance', 'The appearance attributes do not match their grammar.'));
    void this.label(lang);
  }

  /** The frame's title and the skeleton's label in the element's language. */
  private async label(lang: string | null) {
    const t = await textsFor(lang);
    if (!t || !this.handle) return;
    this.handle.iframe.setAttribute('title', t.frameTitle);
    this.handle.box.querySelector('.pw-skel')?.setAttribute('aria-label', t.loading);
  }

  private showUnavailable(lang: string | null) {
    const p = document.createElement('p');
    p.className = 'pw-error';
    p.setAttribute('role', 'alert');
    p.textContent = 'Powerly is unavailable.';
    void textsFor(lang).then((t) => {
      if (t) p.textContent = t.unavailable;
    });
    this.handle?.box.replaceWith(p);
  }
}

// Safe against double registration (two copies of the script, or a host that defines it first).
if (!customElements.get('powerly-rent')) {
  customElements.define('powerly-rent', PowerlyRent);
}

export type { PowerlyRent };

declare global {
  interface HTMLElementTagNameMap {
    'powerly-rent': PowerlyRent;
  }
}
