// Nearby service buttons: not open yet in this product, each says so ("not open" toast).
import { useT } from '../i18n/index.ts';
import { toast } from '../ui/feedback.tsx';

const SERVICES = ['food', 'hotel', 'transit'] as const;

export function NearbyServices() {
  const t = useT();
  return (
    <nav className="nearby-services" aria-label={t('map.services')}>
      {SERVICES.map((s) => (
        <button key={s} type="button" className="button small" onClick={() => toast(t('map.notOpen'))}>
          {t(`map.service.${s}`)}
        </button>
      ))}
    </nav>
  );
}
