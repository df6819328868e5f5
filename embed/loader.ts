// The loader a host page adds with one tag:
//   <script>window.Powerly=window.Powerly||function(){(Powerly.q=Powerly.q||[]).push(arguments)}</script>
//   <script type="module" src="https://POWERLY/embed/loader.js"></script>
//   Powerly('mount', '#rent', { agent: 'my-agent', qrcode: 'PWL-LIS-001' });
// Calls made before this script has loaded are queued by the snippet and replayed in order; later calls
// run at once. The widget's origin is this script's own origin (as giscus takes it from its script URL).
import type { WidgetEvent } from './bridge.ts';
import { mountWidget, type WidgetHandle } from './mount.ts';

type Listener = (e: WidgetEvent & { target: Element }) => void;
type Command = [string, ...unknown[]];
interface PowerlyFn {
  (...args: unknown[]): unknown;
  q?: ArrayLike<unknown>[];
  loaded?: boolean;
}

const WIDGET_ORIGIN = new URL(import.meta.url).origin;
const widgets = new Map<Element, WidgetHandle>();
const listeners: Partial<Record<WidgetEvent['type'], Listener[]>> = {};
const EVENT_TYPES: readonly WidgetEvent['type'][] = ['ready', 'height', 'navigate', 'rented', 'returned', 'error'];

interface MountArgs {
  agent?: unknown;
  qrcode?: unknown;
  token?: unknown;
  lang?: unknown;
  code?: unknown;
}
const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

function mount(target: unknown, args: MountArgs = {}): void {
  const el = typeof target === 'string' ? document.querySelector(target) : target instanceof Element ? target : null;
  const agent = str(args.agent);
  if (!el || !agent) {
    console.error('Powerly: mount needs a target element and an agent');
    return;
  }
  widgets.get(el)?.destroy();
  const handle = mountWidget(el, {
    widgetOrigin: WIDGET_ORIGIN, agent, qrcode: str(args.qrcode), token: str(args.token), lang: str(args.lang), code: str(args.code),
    onEvent(e) {
      el.dispatchEvent(new CustomEvent(`powerly:${e.type}`, { detail: e, bubbles: true }));
      for (const fn of listeners[e.type] ?? []) fn({ ...e, target: el });
    },
  });
  widgets.set(el, handle);
}

function handleOf(target: unknown): WidgetHandle | undefined {
  const el = typeof target === 'string' ? document.querySelector(target) : target instanceof Element ? target : null;
  return el ? widgets.get(el) : widgets.size === 1 ? [...widgets.values()][0] : undefined;
}

/** Known commands only; a name is never used to look a function up. */
function run([cmd, a, b]: Command): void {
  switch (cmd) {
    case 'mount':
      return mount(a, (b ?? {}) as MountArgs);
    case 'on':
      if (EVENT_TYPES.includes(a as WidgetEvent['type']) && typeof b === 'function') (listeners[a as WidgetEvent['type']] ??= []).push(b as Listener);
      return;
    case 'setQrcode':
      if (typeof b === 'string') handleOf(a)?.setQrcode(b);
      return;
    case 'setToken':
      if (typeof b === 'string') handleOf(a)?.setToken(b);
      return;
    case 'setLang':
      if (typeof b === 'string') handleOf(a)?.setLang(b);
      return;
    case 'unmount': {
      const h = handleOf(a);
      h?.destroy();
      for (const [el, w] of widgets) if (w === h) widgets.delete(el);
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
  w.Powerly = api;
  for (const args of Array.from(queued)) run(Array.from(args) as Command);
}
