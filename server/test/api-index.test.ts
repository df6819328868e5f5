// The API's base address, printed at start-up, answers with where the API is described (it was a 404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../src/lib/route.ts';
import { build, type Built } from './helper.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

describe('the API base address', () => {
  it('answers with the address of its OpenAPI document, which answers too', async () => {
    const r = await b.app.inject({ method: 'GET', url: `${API_PREFIX}/` });
    expect(r.statusCode).toBe(200);
    const link = r.json().data.openapi as string;
    expect(link).toBe(`${API_PREFIX}/openapi.json`);
    expect((await b.app.inject({ method: 'GET', url: link })).statusCode).toBe(200);
  });
});
