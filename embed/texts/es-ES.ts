// The <powerly-rent> element's own texts in es-ES: element-texts-es-ES.js, fetched by an element in that language.
import { embed } from '../../locales/es-ES.json';
import type { ElementTexts } from './types.ts';

export const texts: ElementTexts = {
  loading: embed.loading,
  unavailable: embed.unavailable,
  frameTitle: embed.frameTitle,
};
