// Monri Components in the browser, as the Monri test server (monri.ts) serves it to the browser tests (test tree
// only, never shipped): the documented JS API of <apiBase>/dist/components.js —
//   const monri = Monri(authenticityToken, {locale});
//   const card = monri.components({clientSecret}).create('card', {style});
//   card.mount('<element id>');  card.onChange((e) => e.error?.message);
//   monri.confirmPayment(card, {address, fullName, city, zip, phone, country, email, orderInfo})
//     → Promise<{error: {message}} | {result: {status: 'approved' | 'declined', order_number, amount, currency, …, errors}}>
// The card form is a frame of Monri's host (the card never touches the merchant's page); the frame confirms the
// payment with Monri itself (here: POST /components/confirm on the test server, which runs FakeMonri.confirm).

/** <apiBase>/dist/components.js */
export const COMPONENTS_JS = String.raw`(function () {
  var origin = new URL(document.currentScript.src).origin;
  window.Monri = function (authenticityToken, options) {
    if (!authenticityToken) throw new Error('Monri: the authenticity token is required');
    var locale = (options && options.locale) || 'en';
    var clientSecret = null;
    var frames = [];
    return {
      components: function (o) {
        if (!o || !o.clientSecret) throw new Error('Monri: clientSecret is required');
        clientSecret = o.clientSecret;
        return {
          create: function (type) {
            if (type !== 'card') throw new Error('Monri: unknown component ' + type);
            var listeners = [];
            var card = {
              mount: function (id) {
                var host = document.getElementById(id);
                if (!host) throw new Error('Monri: no element with id ' + id);
                var f = document.createElement('iframe');
                f.src = origin + '/components/card?locale=' + encodeURIComponent(locale);
                f.style.cssText = 'width:100%;height:230px;border:0';
                host.appendChild(f);
                card.frame = f;
                frames.push(f);
              },
              onChange: function (cb) { listeners.push(cb); },
              frame: null
            };
            window.addEventListener('message', function (e) {
              if (e.origin !== origin || !card.frame || e.source !== card.frame.contentWindow) return;
              if (e.data && e.data.type === 'monri:change') listeners.forEach(function (cb) { cb({ error: e.data.error || null }); });
            });
            return card;
          }
        };
      },
      confirmPayment: function (card, transaction) {
        return new Promise(function (resolve) {
          if (!card || !card.frame) return resolve({ error: { message: 'The card component is not mounted' }, result: null });
          var ch = new MessageChannel();
          ch.port1.onmessage = function (e) { resolve(e.data); };
          card.frame.contentWindow.postMessage({ type: 'monri:confirm', clientSecret: clientSecret, authenticityToken: authenticityToken, transaction: transaction }, origin, [ch.port2]);
        });
      }
    };
  };
})();
`;

/** The card form's frame: number, expiry, CVV; validates as the customer types and confirms with Monri. */
export const CARD_FRAME_HTML = String.raw`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Card</title>
<style>body{font-family:sans-serif;margin:0}label{display:block;font-size:14px;margin-top:6px}input{box-sizing:border-box;width:100%;min-height:44px;font-size:16px}</style></head>
<body><label for="pan">Card number</label><input id="pan" inputmode="numeric" autocomplete="cc-number">
<label for="exp">Expiry (MM/YY)</label><input id="exp" inputmode="numeric" autocomplete="cc-exp">
<label for="cvv">CVV</label><input id="cvv" inputmode="numeric" autocomplete="cc-csc">
<script>
function digits(s) { return s.replace(/\D/g, ''); }
function problem() {
  var pan = digits(document.getElementById('pan').value);
  if (pan.length < 13 || pan.length > 19) return 'Invalid card number';
  if (!/^\d{2}\/?\d{2}$/.test(document.getElementById('exp').value.trim())) return 'Invalid expiration date';
  if (!/^\d{3,4}$/.test(document.getElementById('cvv').value.trim())) return 'Invalid CVV';
  return null;
}
['pan', 'exp', 'cvv'].forEach(function (id) {
  document.getElementById(id).addEventListener('blur', function () {
    var p = problem();
    parent.postMessage({ type: 'monri:change', error: p && this.value ? { message: p } : null }, '*');
  });
});
window.addEventListener('message', function (e) {
  if (!e.data || e.data.type !== 'monri:confirm' || !e.ports[0]) return;
  var port = e.ports[0];
  var p = problem();
  if (p) return port.postMessage({ error: { message: p }, result: null });
  fetch('/components/confirm', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ authenticity_token: e.data.authenticityToken, client_secret: e.data.clientSecret, pan: digits(document.getElementById('pan').value),
      expiry: document.getElementById('exp').value, cvv: document.getElementById('cvv').value, transaction: e.data.transaction })
  }).then(function (r) { return r.json(); }).then(function (j) { port.postMessage(j); },
    function () { port.postMessage({ error: { message: 'Network error, try again' }, result: null }); });
});
</script></body></html>`;
