// The widget's appearance inside the iframe: a validated Appearance (protocol.ts parseAppearance) becomes the
// app's own CSS variables (src/ui/app/base.css) on <html>, through the CSSOM only (setProperty never parses a
// value into more than one declaration, and every value already matched its grammar).
import type { Appearance } from './protocol.ts';

/** Appearance variable → the app's CSS variables it sets. */
const TARGETS: Record<string, string[]> = {
  colorPrimary: ['--brand', '--live'],
  colorBackground: ['--bg'],
  colorText: ['--ink'],
  colorDanger: ['--danger'],
  fontFamily: ['--font'],
  borderRadius: ['--radius'],
  spacingUnit: ['--space'],
};

let applied: string[] = [];

export function applyAppearance(html: HTMLElement, a: Appearance): void {
  for (const p of applied) html.style.removeProperty(p);
  applied = [];
  html.dataset.theme = a.theme ?? 'light';
  for (const [key, value] of Object.entries(a.variables ?? {})) {
    for (const prop of TARGETS[key] ?? []) {
      html.style.setProperty(prop, value);
      applied.push(prop);
    }
  }
  // Derived shades follow the chosen colours; the text on primary buttons is black or white, whichever
  // reads better on the chosen primary (WCAG contrast).
  if (a.variables?.colorPrimary) {
    html.style.setProperty('--brand-dark', `color-mix(in srgb, ${a.variables.colorPrimary} 80%, black)`);
    applied.push('--brand-dark');
    const onBrand = textOn(a.variables.colorPrimary);
    if (onBrand) {
      html.style.setProperty('--on-brand', onBrand);
      applied.push('--on-brand');
    }
  }
  if (a.variables?.colorText) {
    html.style.setProperty('--muted', `color-mix(in srgb, ${a.variables.colorText} 72%, transparent)`);
    applied.push('--muted');
  }
}

/** The sRGB channels (0–255) of a validated #hex or rgb()/rgba() colour; null for hsl() (then the theme's default). */
function channels(color: string): [number, number, number] | null {
  const hex = /^#([0-9a-f]{3,8})$/i.exec(color)?.[1];
  if (hex) {
    const full =
      hex.length <= 4
        ? hex
            .split('')
            .map((c) => c + c)
            .join('')
        : hex;
    return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as [number, number, number];
  }
  const rgb = /^rgba?\(\s*([\d.]+)%?[\s,]+([\d.]+)%?[\s,]+([\d.]+)%?/.exec(color);
  return rgb ? [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])] : null;
}

/** Black or white, whichever has the higher contrast ratio on `color`. */
export function textOn(color: string): string | null {
  const c = channels(color);
  if (!c) return null;
  const [r, g, b] = c.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}
