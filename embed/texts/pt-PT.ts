// The <powerly-rent> element's own texts in pt-PT: element-texts-pt-PT.js, fetched by an element in that language.
import { embed } from '../../locales/pt-PT.json';
import type { ElementTexts } from './types.ts';

export const texts: ElementTexts = {
  loading: embed.loading,
  unavailable: embed.unavailable,
  frameTitle: embed.frameTitle,
};
