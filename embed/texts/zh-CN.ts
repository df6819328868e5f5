// The <powerly-rent> element's own texts in zh-CN: element-texts-zh-CN.js, fetched by an element in that language.
import { embed } from '../../locales/zh-CN.json';
import type { ElementTexts } from './types.ts';

export const texts: ElementTexts = {
  loading: embed.loading,
  unavailable: embed.unavailable,
  frameTitle: embed.frameTitle,
};
