// user/more: GET {keys: 'monriBilling'} answers the stored JSON text, POST monriBilling stores it, validated
// by src/core/monriBilling.ts (the fields of Monri's billing, Monri's lengths, a size cap), each fault a clear 400 in
// the user's language; one user's value is never another's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

const get = (token: string, keys: string, lang?: string) =>
  b.app.inject({
    method: 'GET',
    url: `${API}/user/more?keys=${encodeURIComponent(keys)}`,
    headers: { token, ...(lang ? { lang } : {}) },
  });
const post = (token: string, payload: Record<string, string>, lang?: string, json = false) =>
  b.app.inject({
    method: 'POST',
    url: `${API}/user/more`,
    headers: {
      token,
      'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
      ...(lang ? { lang } : {}),
    },
    payload: json ? JSON.stringify(payload) : new URLSearchParams(payload).toString(),
  });

describe('user/more monriBilling', () => {
  it('is null until saved, then the stored JSON text (normalised: known fields, trimmed, in order); saving again replaces it', async () => {
    const token = await touristToken(b.app);
    expect((await get(token, 'monriBilling')).json()).toEqual({
      code: 0,
      msg: expect.any(String),
      data: { monriBilling: null },
    });
    const billing = {
      email: ' ana@example.ba ',
      fullName: 'ana@example.ba',
      country: 'BA',
      address: '',
      city: '',
      zip: '',
      phone: '',
      orderInfo: 'Powerly',
    };
    expect((await post(token, { monriBilling: JSON.stringify(billing) })).json()).toMatchObject({
      code: 0,
      data: null,
    });
    const stored = (await get(token, 'monriBilling')).json().data.monriBilling as string;
    expect(JSON.parse(stored)).toEqual({
      address: '',
      fullName: 'ana@example.ba',
      city: '',
      zip: '',
      phone: '',
      country: 'BA',
      email: 'ana@example.ba',
      orderInfo: 'Powerly',
    });
    expect(Object.keys(JSON.parse(stored))).toEqual([
      'address',
      'fullName',
      'city',
      'zip',
      'phone',
      'country',
      'email',
      'orderInfo',
    ]);
    // A JSON body works as the form body does.
    expect(
      (
        await post(
          token,
          { monriBilling: JSON.stringify({ email: 'eda@example.ba', city: 'Sarajevo' }) },
          undefined,
          true,
        )
      ).json().code,
    ).toBe(0);
    expect(JSON.parse((await get(token, 'monriBilling')).json().data.monriBilling as string)).toEqual({
      city: 'Sarajevo',
      email: 'eda@example.ba',
    });
    // Another user sees none of it.
    const other = await touristToken(b.app);
    expect((await get(other, 'monriBilling')).json().data).toEqual({ monriBilling: null });
  });

  it('refuses what is not Monri billing JSON text, each with a clear message in the user language, and stores nothing', async () => {
    const token = await touristToken(b.app);
    const cases: [string, string, string][] = [
      ['not json', 'en-US', 'The billing details must be JSON text.'],
      ['[1,2]', 'en-US', 'The billing details must be a JSON object of billing fields.'],
      ['"text"', 'en-US', 'The billing details must be a JSON object of billing fields.'],
      [JSON.stringify({ cardNumber: '4111111111111111' }), 'en-US', 'Unknown billing field: cardNumber.'],
      [JSON.stringify({ zip: 71000 }), 'en-US', 'The billing field zip is not valid.'],
      [
        JSON.stringify({ fullName: 'x'.repeat(31) }),
        'pt-PT',
        'O campo de faturação fullName pode ter no máximo 30 caracteres.',
      ],
      [JSON.stringify({ email: 'nope' }), 'es-ES', 'Introduce una dirección de correo electrónico válida'],
      [JSON.stringify({ country: 'B1' }), 'en-US', 'The billing field country is not valid.'],
      [JSON.stringify({ address: 'a'.repeat(995) }), 'lt-LT', 'Atsiskaitymo duomenys per ilgi.'],
    ];
    for (const [text, lang, msg] of cases) {
      const r = await post(token, { monriBilling: text }, lang);
      expect(r.statusCode, text).toBe(400);
      expect(r.json(), text).toMatchObject({ code: 400, msg });
    }
    // Above the schema's cap: the validation error, never a 500.
    const huge = await post(token, { monriBilling: 'x'.repeat(5000) });
    expect(huge.statusCode).toBe(400);
    expect((await post(token, {})).statusCode).toBe(400);
    expect((await get(token, 'monriBilling')).json().data).toEqual({ monriBilling: null });
  });

  it('knows only its keys and needs a signed-in user', async () => {
    const token = await touristToken(b.app);
    const r = await get(token, 'monriBilling,password', 'en-US');
    expect(r.statusCode).toBe(400);
    expect(r.json().msg).toBe('Unknown setting "password" (known: monriBilling).');
    expect((await get(token, ',')).statusCode).toBe(400);
    expect((await b.app.inject({ method: 'GET', url: `${API}/user/more?keys=monriBilling` })).json().code).toBe(401);
  });
});
