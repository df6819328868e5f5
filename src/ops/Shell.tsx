// The shell: header (who, language, sign out), the navigation (only what the person's roles allow), the screen.
import { useStore } from '@nanostores/react';
import { lazy, Suspense, useEffect, useRef } from 'react';
import type { Me } from '../contract/ops/staff.ts';
import { LOCALES, LOCALE_NAMES, type Locale } from '../core/lang.ts';
import type { Permission } from '../core/opsAccess.ts';
import { useT } from '../i18n/index.ts';
import { $lang } from '../stores/locale.ts';
import { loadSession, opsCall } from './api.ts';
import { $route } from './route.ts';
import { Account } from './screens/Account.tsx';
import { AuditLog } from './screens/AuditLog.tsx';
import { Cabinets } from './screens/Cabinets.tsx';
import { WifiLine } from './screens/WifiLine.tsx';
import { Coupons } from './screens/Coupons.tsx';
import { Rentals } from './screens/Rentals.tsx';
import { StaffList } from './screens/StaffList.tsx';
import { Agents } from './screens/fleet/Agents.tsx';
import { Plans } from './screens/fleet/Plans.tsx';
import { Venues } from './screens/fleet/Venues.tsx';
import { Withdrawals } from './screens/Withdrawals.tsx';
import { WalletAdjustments } from './screens/WalletAdjustments.tsx';
import { Riders } from './screens/Riders.tsx';
import { Disputes } from './screens/Disputes.tsx';
import { DeadJobs } from './screens/DeadJobs.tsx';
import { CabinetInbox } from './screens/CabinetInbox.tsx';
import { Partners } from './screens/Partners.tsx';
import { Alerts } from './screens/Alerts.tsx';
import { Dashboard } from './screens/Dashboard.tsx';
import { Money } from './screens/Money.tsx';
import { Payments } from './screens/Payments.tsx';
import { PaymentMethods } from './screens/PaymentMethods.tsx';
import { WifiPackages } from './screens/WifiPackages.tsx';

/** Screens of few people (a technician's phone), in their own chunks. */
const Rebalancing = lazy(() => import('./screens/Rebalancing.tsx'));

interface Entry {
  path: string;
  label: string;
  needs?: Permission;
  screen: (me: Me) => React.JSX.Element;
}

const ENTRIES: Entry[] = [
  { path: '/staff', label: 'ops.nav.staff', needs: 'staff.read', screen: (me) => <StaffList me={me} /> },
  { path: '/venues', label: 'ops.nav.venues', needs: 'fleet.read', screen: (me) => <Venues me={me} /> },
  { path: '/cabinets', label: 'ops.nav.cabinets', needs: 'fleet.read', screen: (me) => <Cabinets me={me} /> },
  { path: '/plans', label: 'ops.nav.plans', needs: 'fleet.read', screen: (me) => <Plans me={me} /> },
  { path: '/wifi', label: 'ops.nav.wifi', needs: 'fleet.read', screen: (me) => <WifiLine me={me} /> },
  { path: '/agents', label: 'ops.nav.agents', needs: 'fleet.read', screen: (me) => <Agents me={me} /> },
  {
    path: '/payment-methods',
    label: 'ops.nav.paymentMethods',
    needs: 'payments.read',
    screen: (me) => <PaymentMethods me={me} />,
  },
  { path: '/coupons', label: 'ops.nav.coupons', needs: 'coupons.read', screen: (me) => <Coupons me={me} /> },
  { path: '/rentals', label: 'ops.nav.rentals', needs: 'orders.read', screen: (me) => <Rentals me={me} /> },
  { path: '/riders', label: 'ops.nav.riders', needs: 'orders.read', screen: (me) => <Riders me={me} /> },
  { path: '/payments', label: 'ops.nav.payments', needs: 'orders.read', screen: () => <Payments /> },
  { path: '/wifi-packages', label: 'ops.nav.packages', needs: 'orders.read', screen: () => <WifiPackages /> },
  { path: '/disputes', label: 'ops.nav.disputes', needs: 'orders.read', screen: (me) => <Disputes me={me} /> },
  {
    path: '/withdrawals',
    label: 'ops.nav.withdrawals',
    needs: 'payouts.read',
    screen: (me) => <Withdrawals me={me} />,
  },
  { path: '/money', label: 'ops.nav.money', needs: 'money.read', screen: (me) => <Money me={me} /> },
  {
    path: '/wallet-adjustments',
    label: 'ops.nav.adjustments',
    needs: 'wallet.adjust',
    screen: (me) => <WalletAdjustments me={me} />,
  },
  { path: '/partners', label: 'ops.nav.partners', needs: 'partners.read', screen: () => <Partners /> },
  { path: '/alerts', label: 'ops.nav.alerts', needs: 'alerts.read', screen: (me) => <Alerts me={me} /> },
  { path: '/dashboard', label: 'ops.nav.dashboard', needs: 'dashboard.read', screen: (me) => <Dashboard me={me} /> },
  {
    path: '/rebalancing',
    label: 'ops.nav.rebalancing',
    needs: 'rebalancing.read',
    screen: (me) => (
      <Suspense fallback={<p role="status">…</p>}>
        <Rebalancing me={me} />
      </Suspense>
    ),
  },
  { path: '/jobs', label: 'ops.nav.jobs', needs: 'jobs.manage', screen: () => <DeadJobs /> },
  { path: '/cabinet-inbox', label: 'ops.nav.inbox', needs: 'jobs.manage', screen: () => <CabinetInbox /> },
  { path: '/audit', label: 'ops.nav.audit', needs: 'audit.read', screen: (me) => <AuditLog me={me} /> },
  { path: '/account', label: 'ops.nav.account', screen: (me) => <Account me={me} /> },
];

export function Shell({ me }: { me: Me }) {
  const t = useT();
  const route = useStore($route);
  const lang = useStore($lang);
  const entries = ENTRIES.filter((e) => !e.needs || me.permissions.includes(e.needs));
  const current = entries.find((e) => e.path === route.path) ?? entries[0]!;
  const heading = useRef<HTMLHeadingElement>(null);
  // A new screen: focus its heading, so keyboard and screen-reader users start there.
  useEffect(() => heading.current?.focus(), [current.path]);
  const signOut = async () => {
    await opsCall('DELETE', '/session').catch(() => undefined);
    await loadSession();
  };
  return (
    <div className="ops-shell">
      <a
        className="ops-skip"
        href="#ops-main"
        onClick={(e) => {
          e.preventDefault();
          heading.current?.focus();
        }}
      >
        {t('ops.nav.skip')}
      </a>
      <header className="ops-header">
        <span className="ops-brand">{t('ops.app.title')}</span>
        <span className="ops-who">
          {me.name} · {me.email}
        </span>
        <label className="ops-lang">
          <span className="ops-sr">{t('ops.app.language')}</span>
          <select value={lang} onChange={(e) => $lang.set(e.currentTarget.value as Locale)}>
            {LOCALES.map((l) => (
              <option key={l} value={l}>
                {LOCALE_NAMES[l]}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void signOut()}>
          {t('ops.app.signOut')}
        </button>
      </header>
      <nav className="ops-nav" aria-label={t('ops.nav.label')}>
        <ul>
          {entries.map((e) => (
            <li key={e.path}>
              <a href={`#${e.path}`} aria-current={e === current ? 'page' : undefined}>
                {t(e.label)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="ops-main" className="ops-main">
        <h1 ref={heading} tabIndex={-1}>
          {t(current.label)}
        </h1>
        {current.screen(me)}
      </main>
    </div>
  );
}
