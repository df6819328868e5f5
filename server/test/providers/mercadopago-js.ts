// MercadoPago.js v2 in the browser, as the Mercado Pago test server (mercadopago.ts) serves it to the browser tests
// (test tree only, never shipped): the documented API of https://sdk.mercadopago.com/js/v2 that the /MercadoPago
// screen uses (github.com/mercadopago/sdk-js, API/core-methods.md and API/fields.md) —
//   const mp = new MercadoPago(publicKey, {locale});
//   mp.fields.create('cardNumber' | 'expirationDate' | 'securityCode', {placeholder}).mount('<div id>')   Secure Fields
//   field.on('binChange', ({bin, field}) => …)   (the card number's first 6 digits, null when they are gone)
//   mp.getIdentificationTypes() → [{id, name, type, min_length, max_length}]
//   mp.getPaymentMethods({bin}) → {paging, results: [{id, payment_type_id, name, issuer}]}
//   mp.getIssuers({paymentMethodId, bin}) → [{id, name}]
//   mp.getInstallments({amount, bin, paymentTypeId}) → [{payment_method_id, payer_costs: [{installments, recommended_message, …}]}]
//   mp.fields.createCardToken({cardholderName, identificationType, identificationNumber}) → {id, …}; rejects with
//     a list of causes [{message, cause}]; createCardToken({cardId}) → a token of a saved card (only the
//     securityCode field mounted)
// The Secure Fields are frames of the SDK's host. Unlike the real SDK (whose frames tokenise among themselves), this
// stand-in collects the frames' values in the SDK script and POSTs /v1/card_tokens?public_key= on the test server,
// which is what a card token is made with; the payment methods, issuers, installments and document types are the
// test cards' of a Brazilian account (the test server's currency BRL).

/** <sdkUrl> = <test server>/js/v2 */
export const MERCADOPAGO_JS = String.raw`(function () {
  var origin = new URL(document.currentScript.src).origin;
  var CARDS = {
    '503143': { id: 'master', issuer: { id: 24, name: 'Mastercard' } },
    '423564': { id: 'visa', issuer: { id: 25, name: 'Visa' } },
    '450995': { id: 'visa', issuer: { id: 1, name: 'Visa Argentina' } },
    '547492': { id: 'master', issuer: { id: 158, name: 'Mastercard Mexico' } },
    '371180': { id: 'amex', issuer: { id: 310, name: 'American Express' } }
  };
  function MercadoPago(publicKey, options) {
    if (!(this instanceof MercadoPago)) throw new Error('MercadoPago must be instantiated with new');
    if (!publicKey) throw new Error('MercadoPago: the public key is required');
    var frames = {};
    var handlers = {};
    var lastBin = null;
    window.addEventListener('message', function (e) {
      if (e.origin !== origin || !e.data || e.data.type !== 'mp:input') return;
      if (e.data.field !== 'cardNumber') return;
      var d = String(e.data.digits || '');
      var bin = d.length >= 6 ? d.slice(0, 6) : null;
      if (bin === lastBin) return;
      lastBin = bin;
      (handlers['cardNumber:binChange'] || []).forEach(function (cb) { cb({ bin: bin, field: 'cardNumber' }); });
    });
    function post(body) {
      return fetch(origin + '/v1/card_tokens?public_key=' + encodeURIComponent(publicKey), {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body)
      }).then(function (r) {
        return r.json().then(function (j) {
          if (!r.ok) throw (j.cause || []).map(function (c) { return { message: c.description || j.message, cause: String(c.code) }; });
          return j;
        });
      });
    }
        function value(type) {
      return new Promise(function (resolve) {
        var f = frames[type];
        if (!f) return resolve('');
        var ch = new MessageChannel();
        ch.port1.onmessage = function (e) { resolve(String(e.data || '')); };
        f.contentWindow.postMessage({ type: 'mp:value' }, origin, [ch.port2]);
      });
    }
    this.fields = {
      create: function (type, opts) {
        if (['cardNumber', 'expirationDate', 'securityCode'].indexOf(type) < 0) throw new Error('MercadoPago: unknown field ' + type);
        var field = {
          mount: function (id) {
            var host = document.getElementById(id);
            if (!host) throw new Error('MercadoPago: no container with id ' + id);
            var f = document.createElement('iframe');
            f.src = origin + '/secure-fields/' + type + '?placeholder=' + encodeURIComponent((opts && opts.placeholder) || '');
            f.style.cssText = 'width:100%;height:40px;border:0';
            host.appendChild(f);
            frames[type] = f;
            return field;
          },
          on: function (event, cb) {
            var k = type + ':' + event;
            (handlers[k] = handlers[k] || []).push(cb);
            return field;
          },
          unmount: function () {
            if (frames[type]) frames[type].remove();
            delete frames[type];
          }
        };
        return field;
      },
      createCardToken: function (data) {
        data = data || {};
        if (data.cardId) {
          // A saved card: its id and the security code field only.
          return value('securityCode').then(function (cvv) {
            cvv = cvv.trim();
            if (!/^\d{3,4}$/.test(cvv)) throw [{ message: 'securityCode should be of length 3.', cause: 'invalid_length' }];
            return post({ card_id: String(data.cardId), security_code: cvv });
          });
        }
        return Promise.all([value('cardNumber'), value('expirationDate'), value('securityCode')]).then(function (v) {
          var number = v[0].replace(/\D/g, ''), exp = /^(\d{2})\/?(\d{2}|\d{4})$/.exec(v[1].trim()), cvv = v[2].trim();
          var causes = [];
          if (number.length < 9 || number.length > 18) causes.push({ message: 'cardNumber should be of length between 9 and 18.', cause: 'invalid_length' });
          if (!exp) causes.push({ message: 'expirationDate should be a valid date.', cause: 'invalid_value' });
          if (!/^\d{3,4}$/.test(cvv)) causes.push({ message: 'securityCode should be of length 3.', cause: 'invalid_length' });
          if (causes.length) throw causes;
          var year = Number(exp[2]);
          return post({ card_number: number, security_code: cvv, expiration_month: Number(exp[1]), expiration_year: year < 100 ? 2000 + year : year,
            cardholder: { name: data.cardholderName || '', identification: { type: data.identificationType || '', number: data.identificationNumber || '' } } });
        });
      }
    };
    this.getIdentificationTypes = function () {
      return Promise.resolve([
        { id: 'CPF', name: 'CPF', type: 'number', min_length: 11, max_length: 11 },
        { id: 'CNPJ', name: 'CNPJ', type: 'number', min_length: 14, max_length: 14 }
      ]);
    };
    this.getPaymentMethods = function (o) {
      var c = CARDS[String((o && o.bin) || '').slice(0, 6)];
      return Promise.resolve({ paging: { total: c ? 1 : 0, limit: 30, offset: 0 },
        results: c ? [{ id: c.id, name: c.id, payment_type_id: 'credit_card', status: 'active', issuer: { default: true, id: c.issuer.id, name: c.issuer.name } }] : [] });
    };
    this.getIssuers = function (o) {
      var c = CARDS[String((o && o.bin) || '').slice(0, 6)];
      return Promise.resolve(c && c.id === o.paymentMethodId ? [{ id: String(c.issuer.id), name: c.issuer.name, processing_mode: 'aggregator' }] : []);
    };
    this.getInstallments = function (o) {
      var c = CARDS[String((o && o.bin) || '').slice(0, 6)];
      var amount = Number(o && o.amount);
      if (!c || !(amount > 0)) return Promise.resolve([]);
      return Promise.resolve([{ payment_method_id: c.id, payment_type_id: 'credit_card', issuer: c.issuer, processing_mode: 'aggregator',
        payer_costs: [1, 2, 3].map(function (n) {
          var each = (amount / n).toFixed(2);
          return { installments: n, installment_rate: 0, discount_rate: 0, installment_amount: Number(each), total_amount: amount,
            recommended_message: n + (n === 1 ? ' parcela' : ' parcelas') + ' de R$ ' + each.replace('.', ',') };
        }) }]);
    };
  }
  window.MercadoPago = MercadoPago;
})();
`;

/** A Secure Field's frame: one input; tells the SDK the card number's digits as they change, answers its value. */
export function secureFieldHtml(type: string, placeholder: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const label = type === 'cardNumber' ? 'Card number' : type === 'expirationDate' ? 'Expiration date' : 'Security code';
  return String.raw`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${label}</title>
<style>body{margin:0}input{box-sizing:border-box;width:100%;height:40px;border:0;font-size:16px}</style></head>
<body><input id="v" aria-label="${label}" placeholder="${esc(placeholder)}" inputmode="numeric" autocomplete="off">
<script>
var input = document.getElementById('v');
input.addEventListener('input', function () { parent.postMessage({ type: 'mp:input', field: '${type}', digits: input.value.replace(/\D/g, '') }, '*'); });
window.addEventListener('message', function (e) { if (e.data && e.data.type === 'mp:value' && e.ports[0]) e.ports[0].postMessage(input.value); });
</script></body></html>`;
}
