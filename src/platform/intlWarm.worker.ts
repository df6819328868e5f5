// The worker of ./intlWarm.ts: makes the Intl formatters the screens use once, in the page's language, so that
// Chromium loads ICU's number, unit and list data (process-wide) off the main thread; then it ends.
onmessage = (e: MessageEvent<string>) => {
  const lang = e.data;
  try {
    new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR', currencyDisplay: 'narrowSymbol' }).format(1.5);
    new Intl.NumberFormat(lang, { style: 'unit', unit: 'minute', unitDisplay: 'short' }).format(5);
    new Intl.ListFormat(lang, { style: 'narrow', type: 'unit' }).format(['1', '2']);
    new Intl.PluralRules(lang).select(2);
  } catch {
    // An engine without one of them: the screens format without the head start.
  }
  postMessage(lang);
  close();
};
