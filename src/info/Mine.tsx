// Route '/mine': the personal page — user, balance, and the same destinations as the side menu.
import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { useT, $activeLang } from '../i18n/index.ts';
import { navigate } from '../stores/router.ts';
import { $user, $isTourist, $token } from '../stores/session.ts';
import { getUserInfo } from '../api/auth.ts';
import { formatMoney, toMinor } from '../core/money.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { MenuButton, userName } from '../ui/SideMenu.tsx';
import './info.css';

const LINKS = [
  ['/wallet', 'menu.wallet'],
  ['/order', 'menu.orders'],
  ['/scanOrder', 'menu.wifiPackages'],
  ['/wifiMall?type=GM', 'menu.wifiMall'],
  ['/usage', 'mine.usage'],
  ['/help', 'menu.help'],
  ['/setting', 'menu.settings'],
  ['/aboutUs', 'menu.aboutUs'],
  ['/contactUs', 'menu.contactUs'],
] as const;

export default function Mine() {
  const t = useT();
  const lang = useStore($activeLang);
  const user = useStore($user);
  const token = useStore($token);
  const tourist = useStore($isTourist);

  // Read afresh on each visit: the balance a top-up (or a rental) just changed, not the one read at sign-in.
  useEffect(() => {
    if (token)
      getUserInfo()
        .then((u) => $user.set(u))
        .catch(() => undefined);
  }, [token]);

  const currency = user?.p_currency;
  // One name, and its initial, on this screen and in the side menu: a guest is "Guest".
  const name = user ? userName(user, tourist, t) : '';
  return (
    <>
      <PageHeader title={t('mine.title')} end={<MenuButton />} />
      <main className="page">
        <section className="info-card mine-head" aria-label={t('mine.account')}>
          <span className="side-menu-avatar" aria-hidden="true">
            {(name || '?').slice(0, 1).toUpperCase()}
          </span>
          <div>
            <p className="section-title" style={{ margin: 0 }}>
              {name || t('common.loading')}
            </p>
            {tourist ? (
              <button type="button" className="button link" onClick={() => navigate('/login')}>
                {t('menu.login')}
              </button>
            ) : null}
            {user && currency ? (
              <p className="small muted">
                {t('mine.balance')}: {formatMoney(toMinor(user.pbalance ?? 0, currency), currency, lang)}
              </p>
            ) : null}
          </div>
        </section>
        <ul className="mine-links">
          {LINKS.map(([to, key]) => (
            <li key={to}>
              <button type="button" className="setting-row" onClick={() => navigate(to)}>
                <span>{t(key)}</span>
                <span className="value" aria-hidden="true">
                  ›
                </span>
              </button>
            </li>
          ))}
        </ul>
      </main>
    </>
  );
}
