// The <powerly-rent> element's own texts in lt-LT: element-texts-lt-LT.js, fetched by an element in that language.
import { embed } from '../../locales/lt-LT.json';
import type { ElementTexts } from './types.ts';

export const texts: ElementTexts = {
  loading: embed.loading,
  unavailable: embed.unavailable,
  frameTitle: embed.frameTitle,
};
