// #/homeMap: the default home screen — the map with the side menu, search, shop card and the scan button.
// (In the WeChat browser the shell's navigation rules send homeMap to /home before this renders.)
import { useT } from '../i18n/index.ts';
import { MenuButton } from '../ui/SideMenu.tsx';
import { MapScreen } from './MapScreen.tsx';

export default function HomeMap() {
  const t = useT();
  const header = (
    <header className="page-header">
      <MenuButton />
      <h1 className="page-title">{t('map.title')}</h1>
    </header>
  );
  return <MapScreen variant="home" header={header} />;
}
