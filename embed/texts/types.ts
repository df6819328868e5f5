/** What the element says itself (the rest is the iframe's): its frame's title, and its skeleton's and error's words. */
export interface ElementTexts {
  loading: string;
  unavailable: string;
  frameTitle: string;
}
