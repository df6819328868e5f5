// The iframe's first screen carries only the strings it shows (the code link and the shell's messages): vite.embed.config.ts bundles these namespaces (or single keys, `ns.key`) of locales/en-US.json into
// the first load
// and the frame loads the whole table right after it starts (embed/frame.tsx); a screen outside the first
// ones waits for it, so no key is ever shown untranslated. The app's own build keeps the whole table.
export const FIRST_SCREEN_STRINGS = [
  'common',
  'errors',
  'shell',
  'routes.homeScan',
  'scan',
  'landing',
  'check.otherCabinet',
  'embed.refused',
  'embed.noHost',
  'embed.badCode',
  'embed.badSignIn',
];
/**
 * The routes the first namespaces cover: the code link. The cabinet's prices (/selectPakage) load their lazy
 * screen after the scan answers and fetch the whole table beside it, so their strings stay out of the first load.
 */
export const FIRST_SCREEN_ROUTES = ['/'];
