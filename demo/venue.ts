// The venue website: two <powerly-rent> elements (two cabinets) on one page, each in its own appearance
// (a light one in the café's purple and a dark one), loaded from the Powerly server with one script tag, and
// a log of the DOM events they send. The script is requested first so the elements upgrade at once.
import { translate } from '../src/i18n/index.ts';
import { logEvents, heading } from './embedLog.ts';

const script = document.createElement('script');
script.type = 'module';
script.src = '/embed/powerly-rent.js';
document.head.append(script);

const root = document.getElementById('venue')!;
root.append(heading(translate('embedDemo.venueTitle'), translate('embedDemo.venueIntro')));
const widgets = document.createElement('div');
widgets.className = 'venue-widgets';
const themes: Record<string, string>[] = [
  {
    theme: 'light',
    'color-primary': '#5b3cc4',
    'color-background': '#faf7ff',
    'color-text': '#221a33',
    'border-radius': '20px',
    'font-family': 'Georgia, serif',
  },
  { theme: 'dark', 'color-primary': '#f2a93b', 'border-radius': '6px', 'spacing-unit': '5px' },
];
for (const [i, [id, qrcode]] of (
  [
    ['rent-lisbon', 'PWL-LIS-001'],
    ['rent-vilnius', 'PWL-VNO-001'],
  ] as const
).entries()) {
  const el = document.createElement('powerly-rent');
  el.id = id;
  el.setAttribute('agent', 'demo-venue');
  el.setAttribute('qrcode', qrcode);
  el.setAttribute('lang', 'en-US');
  for (const [k, v] of Object.entries(themes[i]!)) el.setAttribute(k, v);
  widgets.append(el);
}
root.append(widgets);
root.append(
  logEvents(root, [
    'ready',
    'rental.started',
    'eject.confirmed',
    'eject.failed',
    'rental.returned',
    'rental.notice',
    'payment.failed',
    'error',
    'resize',
  ]),
);
