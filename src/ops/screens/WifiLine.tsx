// The Wi-Fi line: the catalogue (regions, packages and plans with their prices per currency) and the boxes. The box
// deposit per currency is the 'mifi' price plan of a venue or an agent (price plans); power stations are put in a
// cabinet's slot from its live view.
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { Boxes } from '../wifi/boxes.tsx';
import { Packages, Regions } from '../wifi/catalogue.tsx';

export function WifiLine({ me }: { me: Me }) {
  const t = useT();
  const writer = me.permissions.includes('fleet.write');
  const platform = writer && me.memberships.some((m) => m.agentId === '*' && (m.role === 'owner' || m.role === 'admin' || m.role === 'field_technician'));
  return (
    <>
      <p>{t('ops.wifi.lead')}</p>
      <Regions canWrite={platform} />
      <Packages canWrite={platform} />
      <Boxes canWrite={writer} />
    </>
  );
}
