// The app shell: the hash route → its entry in the route table (src/routes.ts) → the navigation rules and
// the guard (src/shell/navigationEffects.ts) → the lazily loaded screen, and the document title.
import { lazy, Suspense, useState, type ComponentType, type LazyExoticComponent } from 'react';
import { useStore } from '@nanostores/react';
import { $route } from './stores/router.ts';
import { NOT_FOUND_TITLE, matchRoute, notFoundScreen, type RouteDef } from './routes.ts';
import { useT } from './i18n/index.ts';
import { Loading } from './ui/Loading.tsx';
import { FeedbackHost } from './ui/feedback.tsx';
import { DelayedLoading, ScreenBoundary, lazyScreen } from './ui/lazyScreen.tsx';
import { $sideMenuOpen, closeSideMenu } from './stores/sideMenu.ts';
import { useDocumentTitle, useNavigationFocus, useRouteRules } from './shell/navigationEffects.ts';

type Screen = LazyExoticComponent<ComponentType> | ComponentType;

/** One lazy component per screen loader, made on first use (aliases share their route's). */
const screens = new Map<RouteDef['screen'], Screen>();
function screenOf(route: RouteDef | undefined): Screen {
  const load = route?.screen ?? notFoundScreen;
  let screen = screens.get(load);
  if (!screen) screens.set(load, (screen = lazyScreen(load)));
  return screen;
}

/**
 * Loads a path's screen before the first render, which then shows it without suspending: the build's prerender
 * (build/prerender.ts) and the hydration of that markup (src/main.tsx) render the same tree.
 */
export async function preloadScreen(path: string): Promise<void> {
  const load = matchRoute(path)?.route.screen ?? notFoundScreen;
  if (!screens.has(load)) screens.set(load, (await load()).default);
}

/** The side menu's drawer, loaded the first time the menu opens (it is not part of any first screen). */
const SideMenu = lazy(() => import('./ui/SideMenu.tsx').then((m) => ({ default: m.SideMenu })));
function SideMenuHost() {
  const open = useStore($sideMenuOpen);
  const [used, setUsed] = useState(false);
  if (open && !used) setUsed(true);
  return used ? (
    <Suspense fallback={null}>
      <SideMenu />
    </Suspense>
  ) : null;
}

/**
 * `signedIn`: the server's render of the package screen for a code link (src/prerender.tsx renderPackage), which
 * has no session; the client makes the rider's (tourist) session before it hydrates that markup, so the guard
 * lets the screen show there too.
 */
export function App({ signedIn = false }: { signedIn?: boolean }) {
  const t = useT();
  const route = useStore($route);
  const def = matchRoute(route.path)?.route;
  const show = useRouteRules(route, def?.access ?? null) || signedIn;
  useDocumentTitle(def?.screen ? def.title : NOT_FOUND_TITLE);
  useNavigationFocus(route.path, closeSideMenu);

  const Screen = screenOf(def);
  return (
    <>
      <ScreenBoundary resetKey={route.path}>
        <Suspense fallback={<DelayedLoading />}>
          {show ? <Screen key={route.path} /> : <Loading label={t('common.loading')} />}
        </Suspense>
      </ScreenBoundary>
      <SideMenuHost />
      <FeedbackHost />
      {/* Names the new screen after a navigation (useNavigationFocus). */}
      <p id="route-announcer" className="visually-hidden" aria-live="polite" aria-atomic="true" />
    </>
  );
}
