// The sandbox SMS outbox on the demo page: the codes the phone login would have texted.
import { useEffect, useState } from 'react';
import { useT } from '../src/i18n/index.ts';
import '../src/auth/auth.css';

interface Sms {
  id: number;
  to: string;
  body: string;
  at: string;
}

export function SmsPanel() {
  const t = useT();
  const [messages, setMessages] = useState<Sms[] | null>(null);
  useEffect(() => {
    let stop = false;
    const load = async () => {
      try {
        const res = await fetch('/sandbox-sms/v1/messages');
        if (res.ok && !stop) setMessages((await res.json()) as Sms[]);
      } catch {
        /* the next poll retries */
      }
    };
    void load();
    const h = setInterval(() => void load(), 2000);
    return () => {
      stop = true;
      clearInterval(h);
    };
  }, []);
  return (
    <section className="panel sms-panel" aria-labelledby="sms-title">
      <h2 id="sms-title" className="title">
        {t('demoSms.title')}
      </h2>
      <p>{t('demoSms.intro')}</p>
      <div role="status" aria-live="polite">
        {messages && messages.length > 0 ? (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('demoSms.to')}</th>
                <th scope="col">{t('demoSms.text')}</th>
                <th scope="col">{t('demoSms.at')}</th>
              </tr>
            </thead>
            <tbody>
              {messages.map((m) => (
                <tr key={m.id}>
                  <td>+{m.to}</td>
                  <td>{m.body}</td>
                  <td>{new Date(m.at).toLocaleTimeString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="empty">{t('demoSms.empty')}</p>
        )}
      </div>
    </section>
  );
}
