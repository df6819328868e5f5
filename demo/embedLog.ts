// Shared by the demo host pages: a heading and a live log of widget events.
import { translate } from '../src/i18n/index.ts';

export function heading(title: string, intro: string): DocumentFragment {
  const f = document.createDocumentFragment();
  const h = document.createElement('h1');
  h.textContent = title;
  const p = document.createElement('p');
  p.textContent = intro;
  f.append(h, p);
  return f;
}

/** Lists every event of the given types that reaches `on`, as "<widget id> <type> <detail>". */
export function logEvents(on: EventTarget, types: string[]): HTMLElement {
  const section = document.createElement('section');
  const h = document.createElement('h2');
  h.textContent = translate('embedDemo.events');
  // The live region wraps the list: an <ol> given role=log would no longer be a list, and its items would have none.
  const region = document.createElement('div');
  region.setAttribute('role', 'log');
  region.setAttribute('aria-label', translate('embedDemo.events'));
  const list = document.createElement('ol');
  region.append(list);
  section.append(h, region);
  for (const type of types) {
    on.addEventListener(type, (e) => {
      const target = e.target as HTMLElement;
      const detail = (e as CustomEvent).detail as Record<string, unknown>;
      const extra = Object.entries(detail)
        .filter(([k]) => k !== 'type')
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ');
      const li = document.createElement('li');
      li.textContent = `${target.id} ${type}${extra ? ' ' + extra : ''}`;
      list.append(li);
    });
  }
  return section;
}
