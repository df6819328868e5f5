// #/homeMap: the default home screen — the map with the side menu, search, shop card and the scan button.
import { useEffect, useState, type ComponentType } from 'react';
import { useT } from '../i18n/index.ts';
import { navigate } from '../stores/router.ts';
import { LangSelect } from '../ui/LangSelect.tsx';
import { MapScreen } from './MapScreen.tsx';

// The side menu (issue 8) is not in this branch yet: the menu button opens #/mine, the menu's route, until then.
const SIDE_MENU: ComponentType<{ open: boolean; onClose: () => void }> | null = null;

/** Spec §2: in the WeChat browser the home map redirects to /home. */
export const inWeChat = (ua: string) => /MicroMessenger/i.test(ua);

export default function HomeMap() {
  const t = useT();
  const [menu, setMenu] = useState(false);
  const wechat = typeof navigator !== 'undefined' && inWeChat(navigator.userAgent);
  useEffect(() => {
    if (wechat) navigate('/home', { replace: true });
  }, [wechat]);
  const Menu = SIDE_MENU;
  const header = (
    <header className="page-header">
      <button
        type="button"
        className="icon-button"
        aria-label={t('map.menu')}
        aria-expanded={Menu ? menu : undefined}
        onClick={() => (Menu ? setMenu(true) : navigate('/mine'))}
      >
        <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
          <path d="M4 6h16M4 12h16M4 18h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        </svg>
      </button>
      <h1 className="page-title">{t('map.title')}</h1>
      <div className="page-header-end">
        <LangSelect />
      </div>
      {Menu ? <Menu open={menu} onClose={() => setMenu(false)} /> : null}
    </header>
  );
  return wechat ? null : <MapScreen variant="home" header={header} />;
}
