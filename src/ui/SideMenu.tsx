// The side menu: a modal drawer on <dialog> — user name or a login prompt, wallet, orders, about us,
// contact us, settings, help, logout, and the join-us partner box. Any screen opens it with openSideMenu()
// or renders <MenuButton/>; the app shell renders <SideMenu/> once, loaded the first time the menu opens.
import { useEffect, useRef } from 'react';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { navigate } from '../stores/router.ts';
import { $token, $user, $isTourist } from '../stores/session.ts';
import { getUserInfo } from '../api/auth.ts';
import { logout } from '../auth/session.tsx';
import { confirmDialog } from './feedback.tsx';
import './sideMenu.css';
import { LangSelect } from './LangSelect.tsx';

import { $sideMenuOpen, closeSideMenu, openSideMenu } from '../stores/sideMenu.ts';

export { $sideMenuOpen, closeSideMenu, openSideMenu };

export function MenuButton() {
  const t = useT();
  const open = useStore($sideMenuOpen);
  return (
    <button
      type="button"
      className="icon-button"
      aria-label={t('menu.open')}
      aria-haspopup="dialog"
      aria-expanded={open}
      onClick={openSideMenu}
    >
      <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
        <path d="M4 7h16M4 12h16M4 17h16" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
      </svg>
    </button>
  );
}

const ENTRIES = [
  ['/wallet', 'menu.wallet'],
  ['/order', 'menu.orders'],
  ['/scanOrder', 'menu.wifiPackages'],
  ['/wifiMall?type=GM', 'menu.wifiMall'],
  ['/aboutUs', 'menu.aboutUs'],
  ['/contactUs', 'menu.contactUs'],
  ['/setting', 'menu.settings'],
  ['/help', 'menu.help'],
] as const;

export function SideMenu() {
  const t = useT();
  const open = useStore($sideMenuOpen);
  const token = useStore($token);
  const user = useStore($user);
  const tourist = useStore($isTourist);
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      d.showModal();
      d.querySelector<HTMLElement>('.side-menu-close')?.focus();
    } else if (!open && d.open) {
      d.close();
      const back = opener.current as HTMLElement | null;
      if (back && back !== document.body && back.isConnected) back.focus();
    }
  }, [open]);

  // The user's name: load it when the menu opens with a session but no user yet.
  useEffect(() => {
    if (!open || !token || user) return;
    let live = true;
    getUserInfo()
      .then((u) => live && $user.set(u))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [open, token, user]);

  const go = (to: string) => {
    closeSideMenu();
    navigate(to);
  };

  const onLogout = async () => {
    const ok = await confirmDialog({
      title: t('menu.logoutTitle'),
      text: t('menu.logoutText'),
      okLabel: t('menu.logout'),
    });
    if (!ok) return;
    closeSideMenu();
    await logout();
  };

  const name = user ? userName(user, tourist, t) : '';
  return (
    <dialog
      ref={ref}
      className="side-menu"
      aria-labelledby="side-menu-title"
      onCancel={(e) => {
        e.preventDefault();
        closeSideMenu();
      }}
      onClick={(e) => {
        if (e.target === ref.current) closeSideMenu(); // the backdrop
      }}
    >
      <nav className="side-menu-panel" aria-labelledby="side-menu-title">
        <div className="side-menu-head">
          <h2 id="side-menu-title" className="visually-hidden">
            {t('menu.title')}
          </h2>
          <span className="side-menu-avatar" aria-hidden="true">
            {(name || '?').slice(0, 1).toUpperCase()}
          </span>
          {token ? <p className="side-menu-user">{name || t('common.loading')}</p> : null}
          {/* A guest (a scan's session) signs in from here too. */}
          {!token || tourist ? (
            <button type="button" className="button link side-menu-login" onClick={() => go('/login')}>
              {t('menu.login')}
            </button>
          ) : null}
          <button
            type="button"
            className="icon-button side-menu-close"
            aria-label={t('menu.close')}
            onClick={closeSideMenu}
          >
            <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
              <path d="M6 6l12 12M18 6L6 18" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
          </button>
        </div>
        <ul className="side-menu-list">
          {ENTRIES.map(([to, key]) => (
            <li key={to}>
              <button type="button" className="side-menu-item" onClick={() => go(to)}>
                {t(key)}
              </button>
            </li>
          ))}
          {token ? (
            <li>
              <button type="button" className="side-menu-item danger" onClick={() => void onLogout()}>
                {t('menu.logout')}
              </button>
            </li>
          ) : null}
        </ul>
        {/* The language choice lives here and in Settings, not in the headers (titles keep their room). */}
        <div className="side-menu-lang">
          <LangSelect />
        </div>
        <section className="side-menu-join" aria-labelledby="side-menu-join-title">
          <h3 id="side-menu-join-title">{t('menu.joinTitle')}</h3>
          <p className="small">{t('menu.joinText')}</p>
          <button type="button" className="button primary block" onClick={() => go('/aboutUs?join=1')}>
            {t('menu.joinButton')}
          </button>
        </section>
      </nav>
    </dialog>
  );
}

/** The name the menu and Me show: "Guest" for a guest, "My account" for a person who gave none. */
export function userName(user: { pname?: string | null }, tourist: boolean, t: (key: string) => string): string {
  if (tourist) return t('menu.tourist');
  return user.pname || t('menu.member');
}
