// The <powerly-rent> element's own texts in en-US: element-texts-en-US.js, fetched by an element in that language.
import { embed } from '../../locales/en-US.json';
import type { ElementTexts } from './types.ts';

export const texts: ElementTexts = {
  loading: embed.loading,
  unavailable: embed.unavailable,
  frameTitle: embed.frameTitle,
};
