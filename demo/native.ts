// Plays a native app (React Native style) hosting the Powerly web-view. Like a real app it signs its user in
// with the API, asks the server for a signed one-time code, and injects { init, code, qrcode } into the
// web-view as a message event with no origin (what injectJavaScript does); the page answers through
// window.ReactNativeWebView.postMessage. The token never travels in the message or the URL: only the code.
import { translate } from '../src/i18n/index.ts';
import { heading } from './embedLog.ts';

const API = '/cdb-app-api/v1/app';
const params = new URLSearchParams(location.search);
const qrcode = params.get('qrcode') ?? 'PWL-LIS-001';
const main = document.getElementById('native')!;
main.prepend(heading(translate('embedDemo.nativeTitle'), translate('embedDemo.nativeIntro')));

const links = document.createElement('p');
links.textContent = translate('embedDemo.webviewPages') + ': ';
for (const path of ['aboutUsApp/zh-CN', 'aboutUsApp/pt-BR', 'contactUsApp/lt-LT', 'contactUsApp/en-US']) {
  const a = document.createElement('a');
  a.href = `/#/${path}`;
  a.textContent = `#/${path}`;
  links.append(a, ' ');
}
main.append(links);

const logList = document.createElement('ol');
logList.setAttribute('role', 'log');
logList.setAttribute('aria-label', translate('embedDemo.events'));
main.append(logList);
const log = (text: string) => {
  const li = document.createElement('li');
  li.textContent = text;
  logList.append(li);
};

async function envelope<T>(res: Response): Promise<T> {
  const body = (await res.json()) as { code: number; msg: string; data: T };
  if (body.code !== 0) throw new Error(body.msg);
  return body.data;
}

async function run() {
  // The app's own sign-in (a tourist session here), then a one-time code for the web-view.
  const token = await envelope<string>(await fetch(`${API}/saas/tourist/login`, { method: 'POST' }));
  const { code } = await envelope<{ code: string }>(
    await fetch(`${API}/embed/code`, {
      method: 'POST',
      headers: { token, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ agent: 'demo-app' }),
    }),
  );
  const frame = document.createElement('iframe');
  frame.title = translate('embed.frameTitle');
  frame.src = '/embed/frame.html?agent=demo-app&transport=native';
  frame.style.cssText = 'width:100%;max-width:420px;height:760px;border:1px solid #ccc;border-radius:12px';
  frame.addEventListener(
    'load',
    () => {
      const w = frame.contentWindow as (Window & { ReactNativeWebView?: { postMessage(s: string): void } }) | null;
      if (!w) return;
      w.ReactNativeWebView = {
        postMessage(s: string) {
          const m = JSON.parse(s) as { type: string; payload: Record<string, unknown> };
          if (m.type === 'resize' || m.type === 'hello') return;
          log(
            `webview ${m.type} ${Object.entries(m.payload)
              .map(([k, v]) => `${k}=${String(v)}`)
              .join(' ')}`.trim(),
          );
        },
      };
      const init = JSON.stringify({ powerly: 1, type: 'init', payload: { version: 1, code, qrcode } });
      w.dispatchEvent(new (w as unknown as typeof globalThis).MessageEvent('message', { data: init }));
    },
    { once: true },
  );
  document.getElementById('webview')!.append(frame);
}

void run().catch((e: unknown) => log(`error ${String(e)}`));
