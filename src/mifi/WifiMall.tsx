// Route '/wifiMall' [type=QR|XG|BXG|DDXG|GM, sn]: the package mall: search (debounced 250 ms), the
// country / region list with flags, infinite scroll (page size 6, scroll throttled 500 ms, and a "more" button),
// the package-variant dialog with the start-time picker (minimum now; default 20 minutes ahead) and the
// day stepper (disabled for day-type packages), a header link to /scanOrder and, for QR, XG, BXG and DDXG, the
// "my packages" link to /scanPickUpOrder?type=. A renewal (XG, BXG, DDXG with the box's sn) stays within the package
// it renews: the mall shows that package alone, in its country, with no search or places to wander off to. A
// cabinet's mall (QR) opens on the cabinet's country; where the catalogue has none there, on all packages.
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { errorText, useT } from '../i18n/index.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $qrcode } from '../stores/scan.ts';
import { $mifiOrder } from '../stores/mifi.ts';
import {
  deviceDetail,
  packagePage,
  packageVariants,
  regionList,
  type CatalogueItem,
  type Region,
  type Variant,
} from '../api/mifi.ts';
import {
  DEFAULT_START_AHEAD_MS,
  PACKAGE_PAGE_SIZE,
  PACKAGE_STATUS,
  SCROLL_THROTTLE_MS,
  SEARCH_DEBOUNCE_MS,
  endTime,
  isRenewal,
  localInputValue,
  mallOpeningPlace,
  mallType,
  minorPrice,
  packagePrice,
  showsMyPackages,
  startTime,
  stepDays,
  zonedText,
  type MallType,
} from '../core/mifi.ts';
import { toMajor } from '../core/money.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { toast } from '../ui/feedback.tsx';
import { Loading } from '../ui/Loading.tsx';
import { Flag, MifiScreen, useMoney, usePackageTitle, usePlaceNames } from './common.tsx';

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
                  <img className="mifi-flag" src={r.flagUrl} width={32} height={24} alt="" />
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
                    <img className="mifi-flag" src={c.flagUrl} width={32} height={24} alt="" />
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
        <Flag src={item.flagUrl} country={where} />
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

function VariantDialog(props: {
  item: CatalogueItem;
  type: MallType;
  renewalOf: string;
  currency?: string;
  qrcode: string;
  onClose: () => void;
}) {
  const { item, type } = props;
  const t = useT();
  const money = useMoney();
  const { title } = usePackageTitle();
  const [variants, setVariants] = useState<Variant[] | null>(null);
  const [sel, setSel] = useState(0);
  const [days, setDays] = useState(1);
  const [start, setStart] = useState<number | null>(null);
  const startId = useId();
  const daysId = useId();
  const renewal = isRenewal(type);

  useEffect(() => {
    packageVariants(item.skuId, item.country || undefined, props.currency).then(
      (v) => {
        // The plan of the card chosen is the one selected (the SKU's plans all come back).
        const i = Math.max(
          0,
          v.findIndex((x) => x.packageName === item.packageName && x.isPackage === item.isPackage),
        );
        setVariants(v);
        setSel(i);
        setDays(v[i] ? Math.max(1, v[i].Day) : 1);
      },
      (e: unknown) => {
        toast(errorText(e, t));
        props.onClose();
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- loads once per package
  }, [item.skuId]);

  const v = variants?.[sel];
  const now = Date.now();
  const shownStart = startTime(start, now, true);
  const zone = v?.timeZoneList[0] ?? item.timeZone;
  const price = v
    ? packagePrice({ isPackage: v.isPackage, price: minorPrice(v.price, v.currency), selectDays: days })
    : 0;

  const buy = () => {
    if (!v) return;
    $mifiOrder.set({
      mallType: type,
      skuId: v.skuId,
      skuPriceId: v.skuPriceId,
      packageName: v.packageName,
      country: v.country,
      isPackage: v.isPackage,
      Day: v.Day,
      price: minorPrice(v.price, v.currency),
      currency: v.currency,
      timeZoneList: v.timeZoneList,
      depositAmount: minorPrice(v.depositAmount, v.currency),
      selectDays: stepDays(days, 0, v),
      startTime: start,
      withDevice: type === 'QR',
      qrcode: props.qrcode,
      renewalOf: props.renewalOf,
    });
    navigate(href('/packageOrder', { type: renewal ? 'XG' : 'GM' }));
  };

  return (
    <Dialog
      open
      title={title(item)}
      onClose={props.onClose}
      actions={
        <>
          <button type="button" className="button" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="button" className="button primary" disabled={!v || (renewal && !props.renewalOf)} onClick={buy}>
            {t('mifi.mall.buy')}
          </button>
        </>
      }
    >
      {!variants ? (
        <Loading label={t('common.loading')} />
      ) : (
        <>
          <fieldset className="mifi-variants">
            <legend>{t('mifi.mall.variant')}</legend>
            {variants.map((x, i) => (
              <label key={x.skuPriceId} className={`device-option${i === sel ? ' selected' : ''}`}>
                <input
                  type="radio"
                  name="variant"
                  checked={i === sel}
                  onChange={() => {
                    setSel(i);
                    setDays(Math.max(1, x.Day));
                  }}
                />
                {title(x)} ·{' '}
                {x.isPackage
                  ? t('mifi.mall.pricePackage', { amount: money(x.currency, x.price), days: x.Day })
                  : t('mifi.mall.pricePerDay', { amount: money(x.currency, x.price) })}
              </label>
            ))}
          </fieldset>
          {renewal ? (
            <p>{props.renewalOf ? t('mifi.mall.renewalStart') : t('mifi.mall.renewalNone')}</p>
          ) : (
            <div className="field">
              <label htmlFor={startId}>{t('mifi.mall.start')}</label>
              <input
                id={startId}
                type="datetime-local"
                min={localInputValue(now)}
                value={localInputValue(shownStart)}
                onChange={(e) => {
                  const ms = Date.parse(e.target.value);
                  setStart(Number.isFinite(ms) ? Math.max(ms, Date.now()) : null);
                }}
              />
              <p className="muted small">
                {start == null ? t('mifi.mall.startDefault', { minutes: DEFAULT_START_AHEAD_MS / 60_000 }) : null}
              </p>
            </div>
          )}
          {v ? (
            <div className="mifi-stepper" role="group" aria-labelledby={daysId}>
              <span id={daysId}>{t('mifi.mall.days')}</span>
              <button
                type="button"
                className="button small"
                aria-label={t('mifi.mall.fewerDays')}
                disabled={v.isPackage || days <= 1}
                onClick={() => setDays(stepDays(days, -1, v))}
              >
                −
              </button>
              <output aria-live="polite" data-testid="days">
                {v.isPackage ? v.Day : days}
              </output>
              <button
                type="button"
                className="button small"
                aria-label={t('mifi.mall.moreDays')}
                disabled={v.isPackage}
                onClick={() => setDays(stepDays(days, 1, v))}
              >
                +
              </button>
            </div>
          ) : null}
          {v && !renewal ? (
            <p className="small">
              {t('mifi.mall.until', { end: zonedText(endTime(shownStart, v.isPackage ? v.Day : days), zone), zone })}
            </p>
          ) : null}
          {v ? (
            <p className="mifi-price" data-testid="variant-price">
              {t('mifi.mall.total', { amount: money(v.currency, toMajor(price, v.currency)) })}
            </p>
          ) : null}
        </>
      )}
    </Dialog>
  );
}
