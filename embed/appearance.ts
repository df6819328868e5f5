// The widget's appearance inside the iframe: a validated Appearance (protocol.ts parseAppearance) becomes the
// app's own CSS variables (src/ui/app.css) on <html>, through the CSSOM only (setProperty never parses a
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
  // Derived shades follow the chosen colours.
  if (a.variables?.colorPrimary) {
    html.style.setProperty('--brand-dark', `color-mix(in srgb, ${a.variables.colorPrimary} 80%, black)`);
    applied.push('--brand-dark');
  }
  if (a.variables?.colorText) {
    html.style.setProperty('--muted', `color-mix(in srgb, ${a.variables.colorText} 72%, transparent)`);
    applied.push('--muted');
  }
}
