// The loader a host page adds with one tag:
//   <script>window.Powerly=window.Powerly||function(){(Powerly.q=Powerly.q||[]).push(arguments)}</script>
//   <script type="module" src="https://POWERLY/embed/loader.js"></script>
//   Powerly('mount', '#rent', { agent: 'my-agent', qrcode: 'PWL-LIS-001', appearance: { theme: 'dark' } });
//   Powerly('on', 'eject.confirmed', (e) => …);
// Calls made before this script has loaded are queued by the snippet and replayed in order; later calls
// run at once. The widget's origin is this script's own origin. Event and method names are the element's.
import { WIDGET_EVENT_TYPES, type WidgetEvent } from './bridge.ts';
import { mountWidget, SKELETON_CSS, type WidgetHandle } from './mount.ts';
import { parseAppearance, type Appearance } from './protocol.ts';
import { resolveOpen } from './host.ts';

type Listener = (e: WidgetEvent & { target: Element }) => void;
type Command = [string, ...unknown[]];
interface PowerlyFn {
  (...args: unknown[]): unknown;
  q?: ArrayLike<unknown>[];
  loaded?: boolean;
  version?: number;
}

const WIDGET_ORIGIN = new URL(import.meta.url).origin;
const widgets = new Map<Element, WidgetHandle>();
const listeners: Partial<Record<WidgetEvent['type'], Listener[]>> = {};

interface MountArgs {
  agent?: unknown;
  /** The Powerly server when this script is not served by it (a bundled npm copy). */
  apiBase?: unknown;
  qrcode?: unknown;
  route?: unknown;
  token?: unknown;
  lang?: unknown;
  code?: unknown;
  appearance?: unknown;
  height?: unknown;
}
const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
const elementOf = (target: unknown) =>
  typeof target === 'string' ? document.querySelector(target) : target instanceof Element ? target : null;

function emit(el: Element, e: WidgetEvent) {
  el.dispatchEvent(new CustomEvent(`powerly:${e.type}`, { detail: e, bubbles: true }));
  for (const fn of listeners[e.type] ?? []) fn({ ...e, target: el });
}

function mount(target: unknown, args: MountArgs = {}): void {
  const el = elementOf(target);
  const agent = str(args.agent);
  if (!el || !agent) {
    console.error('Powerly: mount needs a target element and an agent');
    return;
  }
  if (!document.getElementById('powerly-skeleton-css')) {
    const style = document.createElement('style');
    style.id = 'powerly-skeleton-css';
    style.textContent = SKELETON_CSS;
    document.head.appendChild(style);
  }
  const appearance = args.appearance === undefined ? {} : parseAppearance(args.appearance);
  const opened = resolveOpen(args.route);
  const route = opened?.kind === 'route' ? opened.route : undefined;
  widgets.get(el)?.destroy();
  let widgetOrigin = WIDGET_ORIGIN;
  try {
    if (str(args.apiBase)) widgetOrigin = new URL(str(args.apiBase)!).origin;
  } catch {
    // keep the script's origin
  }
  const handle = mountWidget(el, {
    widgetOrigin,
    agent,
    qrcode: str(args.qrcode),
    route,
    token: str(args.token),
    lang: str(args.lang),
    code: str(args.code),
    slot: el.id,
    appearance: appearance ?? undefined,
    height: typeof args.height === 'number' ? args.height : undefined,
    onEvent: (e) => emit(el, e),
  });
  widgets.set(el, handle);
  if (!appearance)
    emit(el, { type: 'error', code: 'badAppearance', message: 'The appearance does not match its grammar.' });
}

function handleOf(target: unknown): [Element, WidgetHandle] | undefined {
  const el = elementOf(target);
  if (el) {
    const h = widgets.get(el);
    return h ? [el, h] : undefined;
  }
  return widgets.size === 1 ? [...widgets.entries()][0] : undefined;
}

/** Known commands only; a name is never used to look a function up. */
function run([cmd, a, b]: Command): void {
  switch (cmd) {
    case 'mount':
      return mount(a, (b ?? {}) as MountArgs);
    case 'on':
      if (WIDGET_EVENT_TYPES.includes(a as WidgetEvent['type']) && typeof b === 'function')
        (listeners[a as WidgetEvent['type']] ??= []).push(b as Listener);
      else console.error(`Powerly: unknown event ${String(a)}`);
      return;
    case 'open': {
      const w = handleOf(a);
      const to = resolveOpen(b);
      if (!w) return;
      if (!to) return emit(w[0], { type: 'error', code: 'badRoute', message: 'Not a route or cabinet code.' });
      return to.kind === 'route' ? w[1].open(to.route) : w[1].setQrcode(to.qrcode);
    }
    case 'close':
      return handleOf(a)?.[1].close();
    case 'logout':
      return handleOf(a)?.[1].logout();
    case 'setLocale':
      if (typeof b === 'string') handleOf(a)?.[1].setLang(b);
      return;
    case 'setTheme': {
      const w = handleOf(a);
      if (w && !w[1].setTheme(b as Appearance))
        emit(w[0], { type: 'error', code: 'badAppearance', message: 'The appearance does not match its grammar.' });
      return;
    }
    case 'setToken':
      if (typeof b === 'string') handleOf(a)?.[1].setToken(b);
      return;
    case 'unmount': {
      const w = handleOf(a);
      if (!w) return;
      w[1].destroy();
      widgets.delete(w[0]);
      return;
    }
    default:
      console.error(`Powerly: unknown command ${String(cmd)}`);
  }
}

const w = window as unknown as { Powerly?: PowerlyFn };
const queued = w.Powerly?.q ?? [];
if (!w.Powerly?.loaded) {
  const api: PowerlyFn = (...args: unknown[]) => run(args as Command);
  api.loaded = true;
  api.version = 1;
  w.Powerly = api;
  for (const args of Array.from(queued)) run(Array.from(args) as Command);
}
