// Route '/wifiMall' [type=QR|XG|BXG|DDXG|GM, sn]: the package mall: search (debounced 250 ms), the
// country / region list with flags, infinite scroll (page size 6, scroll throttled 500 ms, and a "more" button),
// the package-variant dialog (VariantDialog.tsx), a header link to /scanOrder and, for QR, XG, BXG and DDXG, the
// "my packages" link to /scanPickUpOrder?type=. A renewal (XG, BXG, DDXG with the box's sn) stays within the package
// it renews: the mall shows that package alone, in its country, with no search or places to wander off to. A
// cabinet's mall (QR) opens on the cabinet's country; where the catalogue has none there, on all packages.
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { errorText, useT } from '../i18n/index.ts';
import { $route, href } from '../stores/router.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $qrcode } from '../stores/scan.ts';
import { deviceDetail, packagePage, regionList, type CatalogueItem, type Region } from '../api/mifi.ts';
import {
  PACKAGE_PAGE_SIZE,
  PACKAGE_STATUS,
  SCROLL_THROTTLE_MS,
  SEARCH_DEBOUNCE_MS,
  isRenewal,
  mallOpeningPlace,
  mallType,
  showsMyPackages,
  type MallType,
} from '../core/mifi.ts';
import { toast } from '../ui/feedback.tsx';
import { Loading } from '../ui/Loading.tsx';
import { Flag, MifiScreen, useMoney, usePackageTitle, usePlaceNames } from './common.tsx';
import { VariantDialog } from './VariantDialog.tsx';

export default function WifiMall() {
  const t = useT();
  const { query } = useStore($route);
  const type = mallType(query.get('type'));
  return (
    <MifiScreen
      title="mifi.mall.title"
      className="wifi-mall"
      end={() => (
        <a className="button small link" href={'#/scanOrder'}>
          {t('mifi.mall.myOrders')}
        </a>
      )}
    >
      {() => <Mall type={type} sn={query.get('sn') ?? ''} />}
    </MifiScreen>
  );
}

function Mall({ type, sn }: { type: MallType; sn: string }) {
  const t = useT();
  const cabinet = useStore($cabinet);
  const qrcode = useStore($qrcode);
  const searchId = useId();
  const places = usePlaceNames();
  const [keyword, setKeyword] = useState('');
  const [q, setQ] = useState('');
  // A cabinet's mall opens on the cabinet's country (all packages where the catalogue has none there).
  const opening = useRef(mallOpeningPlace(type, cabinet?.country));
  const [place, setPlace] = useState<{ country?: string; region?: string }>(opening.current);
  const [regions, setRegions] = useState<Region[] | null>(null);
  const [items, setItems] = useState<CatalogueItem[]>([]);
  const [total, setTotal] = useState(0);
  const [page, setPage] = useState(0);
  const [busy, setBusy] = useState(false);
  const [chosen, setChosen] = useState<CatalogueItem | null>(null);
  const [renewal, setRenewal] = useState<{ of: string; currency: string; skuId: string } | null>(null);
  const renewing = isRenewal(type) && Boolean(sn);
  const currency = renewal?.currency || (type === 'QR' ? cabinet?.currency : undefined) || undefined;

  // Search: debounced 250 ms.
  useEffect(() => {
    const timer = setTimeout(() => setQ(keyword.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [keyword]);

  useEffect(() => {
    regionList().then(
      (r) => {
        setRegions(r);
        const country = opening.current.country;
        if (country && !r.some((x) => x.countries.some((c) => c.code.toUpperCase() === country)))
          setPlace((p) => (p.country === country ? {} : p));
      },
      (e: unknown) => toast(errorText(e, t)),
    );
  }, [t]);

  // A renewal extends the user's package on this box (sn): the latest one still running or waiting.
  useEffect(() => {
    if (!isRenewal(type) || !sn) return;
    deviceDetail({ sn }).then(
      (d) => {
        const live = [...d.packageDtlList]
          .reverse()
          .find((p) =>
            ([PACKAGE_STATUS.unused, PACKAGE_STATUS.toBeActivated, PACKAGE_STATUS.activated] as number[]).includes(
              p.packageStatus,
            ),
          );
        setRenewal({ of: live?.orderId ?? '', currency: d.currency, skuId: live?.skuId ?? '' });
        if (!live) return;
        setPlace(live.country.length === 2 ? { country: live.country } : {});
      },
      (e: unknown) => toast(errorText(e, t)),
    );
  }, [type, sn, t]);

  // One load at a time; a new search or place starts again at page 1.
  const loading = useRef<AbortController | null>(null);
  const load = useCallback(
    async (current: number) => {
      loading.current?.abort();
      const ctl = new AbortController();
      loading.current = ctl;
      setBusy(true);
      try {
        const r = await packagePage(
          { current, size: PACKAGE_PAGE_SIZE, searchKeywords: q || undefined, ...place, currency },
          ctl.signal,
        );
        if (ctl.signal.aborted) return;
        setItems((prev) =>
          current === 1 ? r.records : [...prev, ...r.records.filter((x) => !prev.some((p) => p.skuId === x.skuId))],
        );
        setTotal(r.total);
        setPage(current);
      } catch (e) {
        if (!ctl.signal.aborted) toast(errorText(e, t));
      } finally {
        if (loading.current === ctl) {
          loading.current = null;
          setBusy(false);
        }
      }
    },
    [q, place, currency, t],
  );
  // A renewal loads once the box's package is known (its currency and country).
  const waiting = renewing && !renewal;
  useEffect(() => {
    if (waiting) return;
    void load(1);
    return () => loading.current?.abort();
  }, [load, waiting]);

  // A renewal's list: its package alone, once the box's package is known.
  const shown = renewing ? items.filter((x) => x.skuId === renewal?.skuId) : items;
  const more = items.length < total && (!renewing || shown.length === 0);
  const next = useRef(() => {});
  next.current = () => {
    if (more && !loading.current) void load(page + 1);
  };
  // Infinite scroll: near the end of whatever scrolls (the page, or the shell's scroll container) loads the next
  // page, at most once per 500 ms; the "more" button below does the same by hand.
  useEffect(() => {
    let last = 0;
    const onScroll = (e: Event) => {
      const now = Date.now();
      if (now - last < SCROLL_THROTTLE_MS) return;
      last = now;
      const el = e.target instanceof Element ? e.target : document.scrollingElement;
      if (el && el.scrollTop + el.clientHeight >= el.scrollHeight - 200) next.current();
    };
    document.addEventListener('scroll', onScroll, { passive: true, capture: true });
    return () => document.removeEventListener('scroll', onScroll, { capture: true });
  }, []);

  const placeLabel = (p: { country?: string; region?: string }) => p.country ?? p.region ?? '';
  return (
    <>
      {renewing ? null : (
        <div className="field">
          <label htmlFor={searchId}>{t('mifi.mall.search')}</label>
          <input
            id={searchId}
            type="search"
            value={keyword}
            placeholder={t('mifi.mall.searchHint')}
            onChange={(e) => setKeyword(e.target.value)}
          />
        </div>
      )}
      {showsMyPackages(type) ? (
        <a className="button block" href={'#' + href('/scanPickUpOrder', { type })}>
          {t('mifi.mall.myPackages')}
        </a>
      ) : null}
      {renewing ? null : (
        <nav aria-label={t('mifi.mall.places')} className="mifi-places">
          <ul>
            <li>
              <button
                type="button"
                className="mifi-place"
                aria-pressed={!placeLabel(place)}
                onClick={() => setPlace({})}
              >
                {t('mifi.mall.all')}
              </button>
            </li>
            {(regions ?? []).flatMap((r) => [
              <li key={`r-${r.id}`}>
                <button
                  type="button"
                  className="mifi-place"
                  aria-pressed={place.region === r.id}
                  onClick={() => setPlace({ region: r.id })}
                >
                  <Flag src={r.flagUrl} alt="" />
                  {places.region(r.id, r.name)}
                </button>
              </li>,
              ...r.countries.map((c) => (
                <li key={c.code}>
                  <button
                    type="button"
                    className="mifi-place"
                    aria-pressed={place.country === c.code}
                    onClick={() => setPlace({ country: c.code })}
                  >
                    <Flag src={c.flagUrl} alt="" />
                    {places.country(c.code, c.name)}
                  </button>
                </li>
              )),
            ])}
          </ul>
        </nav>
      )}
      <section aria-labelledby="mall-list" aria-busy={busy}>
        <h2 id="mall-list" className="section-title">
          {t('mifi.mall.packages', { n: renewing ? shown.length : total })}
        </h2>
        {renewal && !renewal.of ? (
          <p className="muted">{t('mifi.mall.renewalNone')}</p>
        ) : !busy && !waiting && shown.length === 0 ? (
          <p className="muted">{t('mifi.mall.none')}</p>
        ) : null}
        <ul className="mifi-list">
          {shown.map((it) => (
            <li key={it.skuId}>
              <CatalogueRow item={it} onChoose={() => setChosen(it)} />
            </li>
          ))}
        </ul>
        {busy ? <Loading label={t('common.loading')} /> : null}
        {more && !busy ? (
          <button type="button" className="button block" onClick={() => next.current()}>
            {t('mifi.mall.more')}
          </button>
        ) : null}
      </section>
      {chosen ? (
        <VariantDialog
          item={chosen}
          type={type}
          renewalOf={renewal?.of ?? ''}
          currency={currency}
          qrcode={type === 'QR' ? qrcode || cabinet?.qrcode || '' : ''}
          onClose={() => setChosen(null)}
        />
      ) : null}
    </>
  );
}

function CatalogueRow({ item, onChoose }: { item: CatalogueItem; onChoose: () => void }) {
  const t = useT();
  const money = useMoney();
  const places = usePlaceNames();
  const names = usePackageTitle();
  const where = item.country
    ? places.country(item.country, item.countryName)
    : places.region(item.region, item.countryName);
  const title = names.title(item);
  return (
    <article className="mifi-card" aria-label={title}>
      <div className="mifi-card-head">
        <Flag src={item.flagUrl} alt={where} />
        <h3 className="mifi-card-title">{title}</h3>
      </div>
      <p className="muted small">
        {where} · {item.planKind ? names.plan(item) : item.text}
      </p>
      <p className="mifi-price">
        {item.isPackage
          ? t('mifi.mall.pricePackage', { amount: money(item.currency, item.price), days: item.Day })
          : t('mifi.mall.pricePerDay', { amount: money(item.currency, item.price) })}
      </p>
      <button
        type="button"
        className="button small primary"
        onClick={onChoose}
        aria-label={t('mifi.mall.chooseNamed', { name: title })}
      >
        {t('mifi.mall.choose')}
      </button>
    </article>
  );
}
