// The Mercado Pago test server's customers and their saved cards (see ../mercadopago.ts):
//   POST /v1/customers, GET /v1/customers/search?email=, POST /v1/customers/{id}/cards {token},
//   DELETE /v1/customers/{id}/cards/{card_id}
import { MercadoPagoCore } from './core.ts';
import { ApiError, TEST_CARDS } from './model.ts';

export abstract class MercadoPagoCustomers extends MercadoPagoCore {
  /** The saved cards of a customer, as GET /v1/customers/{id}/cards lists them. */
  cardsOf(customerId: string) {
    return this.customers.get(customerId)?.cards ?? [];
  }

  /** A customers' route's answer, or undefined when the request is not one of them. */
  protected customersRoute(method: string, url: URL, b: Record<string, unknown>): [number, unknown] | undefined {
    const path = url.pathname;
    let m: RegExpExecArray | null;
    if (path === '/v1/customers' && method === 'POST') {
      const email = String(b.email ?? '');
      if (!/^[^@\s]+@[^@\s]+$/.test(email))
        throw new ApiError(400, 'bad_request', 'invalid email', [
          { code: 100, description: 'the parameter email is invalid' },
        ]);
      if ([...this.customers.values()].some((c) => c.email === email))
        throw new ApiError(400, 'bad_request', 'the customer already exist', [
          { code: 101, description: 'the customer already exist' },
        ]);
      const c = { id: `${++this.seq}-cust`, email, cards: [] };
      this.customers.set(c.id, c);
      return [201, { id: c.id, email: c.email, cards: c.cards }];
    }
    if (path === '/v1/customers/search' && method === 'GET') {
      const email = url.searchParams.get('email');
      const results = [...this.customers.values()]
        .filter((c) => c.email === email)
        .map((c) => ({ id: c.id, email: c.email, cards: c.cards }));
      return [200, { paging: { total: results.length, limit: 10, offset: 0 }, results }];
    }
    m = /^\/v1\/customers\/([^/]+)\/cards$/.exec(path);
    if (m && method === 'POST') {
      const c = this.customers.get(m[1]!);
      if (!c)
        throw new ApiError(404, 'not_found', 'Customer not found', [
          { code: 'not_found', description: 'Customer not found' },
        ]);
      const t = this.useToken(String(b.token ?? ''));
      const card = {
        id: String(++this.seq),
        customer_id: c.id,
        first_six_digits: t.card.slice(0, 6),
        last_four_digits: t.card.slice(-4),
        payment_method: { id: TEST_CARDS[t.card]!.brand },
        cardholder: { name: t.holder },
      };
      c.cards.push(card);
      this.savedCards.set(card.id, { customer: c.id, card: t.card, holder: t.holder });
      return [200, card];
    }
    m = /^\/v1\/customers\/([^/]+)\/cards\/([^/]+)$/.exec(path);
    if (m && method === 'DELETE') {
      const c = this.customers.get(m[1]!);
      const i = c?.cards.findIndex((x) => x.id === m![2]) ?? -1;
      if (!c || i < 0)
        throw new ApiError(404, 'not_found', 'Card not found', [{ code: 'not_found', description: 'Card not found' }]);
      const [card] = c.cards.splice(i, 1);
      this.savedCards.delete(m[2]!);
      return [200, card];
    }
    return undefined;
  }
}
