// Device and browser facts from the user agent (client state: system, browser).

export type System = 'ios' | 'android' | 'other';

export function systemOf(ua: string): System {
  if (/iPhone|iPad|iPod/i.test(ua) || (/Macintosh/.test(ua) && /Mobile/.test(ua))) return 'ios';
  if (/Android/i.test(ua)) return 'android';
  return 'other';
}

export function currentSystem(): System {
  return typeof navigator === 'undefined' ? 'other' : systemOf(navigator.userAgent);
}

export const APP_STORE_URL = 'https://apps.apple.com/app/powerly';
export const GOOGLE_PLAY_URL = 'https://play.google.com/store/apps/details?id=app.powerly';

/** App Store on iOS, Google Play otherwise. */
export function storeFor(system: System): { store: 'appStore' | 'googlePlay'; url: string } {
  return system === 'ios' ? { store: 'appStore', url: APP_STORE_URL } : { store: 'googlePlay', url: GOOGLE_PLAY_URL };
}
