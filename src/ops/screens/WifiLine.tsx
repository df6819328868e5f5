// The Wi-Fi line: the catalogue (regions, packages and plans with their prices per currency), the box deposit per
// currency (a currency without one falls back to the Wi-Fi price plans of its venues) and the boxes; power
// stations are put in a cabinet's slot from its live view.
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { Boxes } from '../wifi/boxes.tsx';
import { Packages, Regions } from '../wifi/catalogue.tsx';
import { BoxDeposits } from '../wifi/deposits.tsx';

export function WifiLine({ me }: { me: Me }) {
  const t = useT();
  const writer = me.permissions.includes('fleet.write');
  const platform =
    writer &&
    me.memberships.some(
      (m) => m.agentId === '*' && (m.role === 'owner' || m.role === 'admin' || m.role === 'field_technician'),
    );
  return (
    <>
      <p>{t('ops.wifi.lead')}</p>
      <Regions canWrite={platform} />
      <Packages canWrite={platform} />
      <BoxDeposits canWrite={platform} />
      <Boxes canWrite={writer} />
    </>
  );
}
