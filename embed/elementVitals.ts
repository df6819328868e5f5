// element-vitals.js: the web vitals reporter of the <powerly-rent> element, fetched once a widget on the page is
// ready (so it is not part of what the host page fetches before then).
export { reportWebVitals } from '../src/platform/vitals.ts';
