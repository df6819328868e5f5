// Country / area codes for the phone login picker (label, value = dial code, code = ISO).
// Labels come from Intl.DisplayNames in the UI language; this list holds only codes.
export interface Country {
  code: string;
  value: string;
}

export const COUNTRIES: readonly Country[] = [
  ['CN', '86'],
  ['HK', '852'],
  ['MO', '853'],
  ['TW', '886'],
  ['US', '1'],
  ['CA', '1'],
  ['GB', '44'],
  ['IE', '353'],
  ['LT', '370'],
  ['LV', '371'],
  ['EE', '372'],
  ['PL', '48'],
  ['DE', '49'],
  ['FR', '33'],
  ['ES', '34'],
  ['PT', '351'],
  ['IT', '39'],
  ['NL', '31'],
  ['BE', '32'],
  ['CH', '41'],
  ['AT', '43'],
  ['SE', '46'],
  ['NO', '47'],
  ['DK', '45'],
  ['FI', '358'],
  ['GR', '30'],
  ['CZ', '420'],
  ['HU', '36'],
  ['RO', '40'],
  ['BG', '359'],
  ['HR', '385'],
  ['BA', '387'],
  ['RS', '381'],
  ['UA', '380'],
  ['TR', '90'],
  ['IL', '972'],
  ['AE', '971'],
  ['SA', '966'],
  ['EG', '20'],
  ['NG', '234'],
  ['KE', '254'],
  ['GH', '233'],
  ['ZA', '27'],
  ['CM', '237'],
  ['IN', '91'],
  ['PK', '92'],
  ['BD', '880'],
  ['TH', '66'],
  ['VN', '84'],
  ['MY', '60'],
  ['SG', '65'],
  ['ID', '62'],
  ['PH', '63'],
  ['JP', '81'],
  ['KR', '82'],
  ['AU', '61'],
  ['NZ', '64'],
  ['BR', '55'],
  ['AR', '54'],
  ['CL', '56'],
  ['CO', '57'],
  ['PE', '51'],
  ['MX', '52'],
  ['SV', '503'],
  ['TJ', '992'],
  ['KZ', '7'],
].map(([code, value]) => ({ code: code!, value: value! }));

export const DEFAULT_AREA_CODE = '86';

/** Default area code from the browser language's region (e.g. 'lt-LT' → 370), else 86. */
export function defaultAreaCode(browserLang: string | undefined, list: readonly Country[] = COUNTRIES): string {
  const region = browserLang?.split(/[-_]/)[1]?.toUpperCase();
  return list.find((c) => c.code === region)?.value ?? DEFAULT_AREA_CODE;
}

/** Case-insensitive substring of the label. */
export function filterByLabel<T extends { label: string }>(list: readonly T[], keyword: string): T[] {
  const k = keyword.trim().toLowerCase();
  return k ? list.filter((c) => c.label.toLowerCase().includes(k)) : [...list];
}

export const AREA_FILTER_DEBOUNCE_MS = 500;
export const PICKER_ITEM_HEIGHT = 36;
