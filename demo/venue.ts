// The venue website: two <powerly-rent> elements (two cabinets) on one page, loaded from the Powerly server
// with one script tag, and a log of the DOM events they send.
import { translate } from '../src/i18n/index.ts';
import { logEvents, heading } from './embedLog.ts';

const root = document.getElementById('venue')!;
root.append(heading(translate('embedDemo.venueTitle'), translate('embedDemo.venueIntro')));
for (const [id, qrcode] of [['rent-lisbon', 'PWL-LIS-001'], ['rent-vilnius', 'PWL-VNO-001']] as const) {
  const el = document.createElement('powerly-rent');
  el.id = id;
  el.setAttribute('agent', 'demo-venue');
  el.setAttribute('qrcode', qrcode);
  el.setAttribute('lang', 'en-US');
  root.append(el);
}
root.append(logEvents(root, ['ready', 'rented', 'returned', 'error', 'height']));
const script = document.createElement('script');
script.type = 'module';
script.src = '/embed/powerly-rent.js';
document.head.append(script);
