// #/google_map (alias #/map): the nearby-venues map for a signed-in user, with the nearby service buttons.
import { useT } from '../i18n/index.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { MapScreen } from './MapScreen.tsx';
import { NearbyServices } from './NearbyServices.tsx';

export default function GoogleMap() {
  const t = useT();
  return <MapScreen variant="nearby" header={<PageHeader title={t('map.nearbyTitle')} />} extra={<NearbyServices />} />;
}
