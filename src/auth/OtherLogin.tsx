// Route '/otherLogin': tab 1 quick login (Facebook, plus Apple on iOS or Google otherwise); tab 2 mobile login
// (area code, phone number, picture captcha, agreement, send code) and then the 4-digit code screen with a
// 'no SMS / retry' link. The bot check (reCAPTCHA) runs when the code is requested.
import { useEffect, useId, useState } from 'react';
import '../ui/tabs.css';
import { captchaQuestion, captchaUrl, mobileLogin, sendVerifyCode } from '../api/auth.ts';
import { ApiError } from '../api/client.ts';
import { defaultAreaCode } from '../core/countries.ts';
import { CODE_LENGTH, signMaterial } from '../core/sign.ts';
import { errorText, useT } from '../i18n/index.ts';
import { randomId } from '../stores/session.ts';
import { showMessage } from '../ui/feedback.tsx';
import { PageHeader } from '../ui/PageHeader.tsx';
import { AreaPicker } from './AreaPicker.tsx';
import { ProviderButtons, primaryProvider } from './ProviderButtons.tsx';
import { botToken, sha256Hex } from './providers.ts';
import { useCompleteLogin } from './session.tsx';
import './auth.css';

type Tab = 'quick' | 'mobile';

export default function OtherLogin() {
  const t = useT();
  const [tab, setTab] = useState<Tab>('mobile');
  const { finish } = useCompleteLogin();
  const tabs: Tab[] = ['quick', 'mobile'];
  return (
    <main className="page login-page">
      <PageHeader title={t('login.otherTitle')} />
      <div role="tablist" aria-label={t('login.otherTitle')} className="tabs">
        {tabs.map((k, i) => (
          <button
            key={k}
            type="button"
            role="tab"
            id={`login-tab-${k}`}
            aria-controls={`login-panel-${k}`}
            aria-selected={tab === k}
            tabIndex={tab === k ? 0 : -1}
            className="tab"
            onClick={() => setTab(k)}
            onKeyDown={(e) => {
              if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
              const next = tabs[(i + 1) % 2]!;
              setTab(next);
              document.getElementById(`login-tab-${next}`)?.focus();
            }}
          >
            {i + 1}. {t(`login.tab.${k}`)}
          </button>
        ))}
      </div>
      <section role="tabpanel" id={`login-panel-${tab}`} aria-labelledby={`login-tab-${tab}`} className="login-card">
        {tab === 'quick' ? (
          <ProviderButtons providers={['facebook', primaryProvider()]} finish={finish} />
        ) : (
          <PhoneLogin finish={finish} />
        )}
      </section>
    </main>
  );
}

function PhoneLogin({ finish }: { finish: (token: string) => Promise<void> }) {
  const t = useT();
  const id = useId();
  const [area, setArea] = useState(() =>
    defaultAreaCode(typeof navigator === 'undefined' ? undefined : navigator.language),
  );
  const [picker, setPicker] = useState(false);
  const [phone, setPhone] = useState('');
  const [captcha, setCaptcha] = useState('');
  const [uuid, setUuid] = useState(() => randomId());
  const [nonce, setNonce] = useState(0);
  // The picture, or its accessible alternative: the same single-use challenge as a question (screen readers).
  const [captchaMode, setCaptchaMode] = useState<'picture' | 'question'>('picture');
  const [question, setQuestion] = useState('');
  const [step, setStep] = useState<'phone' | 'code'>('phone');
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const newCaptcha = () => {
    setUuid(randomId());
    setNonce((n) => n + 1);
    setCaptcha('');
  };

  const send = async () => {
    setError('');
    const digits = phone.replace(/\D/g, '');
    if (!digits) return setError(t('login.phoneRequired'));
    if (!captcha.trim())
      return setError(t(captchaMode === 'picture' ? 'login.captchaRequired' : 'login.captchaAnswerRequired'));
    setBusy(true);
    try {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const sign = await sha256Hex(signMaterial(timestamp));
      await sendVerifyCode({
        mobile: area + digits,
        timestamp,
        sign,
        botToken: await botToken(),
        uuid,
        captcha: captcha.trim(),
      });
      setStep('code');
      setCode('');
    } catch (e) {
      setError(e instanceof ApiError ? errorText(e, t) : t('login.failed'));
      newCaptcha(); // a captcha is single use
    } finally {
      setBusy(false);
    }
  };

  const login = async () => {
    setError('');
    if (!new RegExp(`^\\d{${CODE_LENGTH}}$`).test(code)) return setError(t('login.codeRequired'));
    setBusy(true);
    try {
      await finish(await mobileLogin({ mobile: phone.replace(/\D/g, ''), verifyCode: code, areaCode: area }));
    } catch (e) {
      setError(e instanceof ApiError ? errorText(e, t) : t('login.failed'));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => setError(''), [step]);

  useEffect(() => {
    if (captchaMode !== 'question') return;
    let live = true;
    setQuestion('');
    captchaQuestion(uuid).then(
      (q) => {
        if (live) setQuestion(q.question);
      },
      (e: unknown) => {
        if (live) setError(e instanceof ApiError ? errorText(e, t) : t('login.failed'));
      },
    );
    return () => {
      live = false;
    };
  }, [captchaMode, uuid, t]);

  if (step === 'code') {
    return (
      <form
        className="login-form"
        onSubmit={(e) => {
          e.preventDefault();
          void login();
        }}
        noValidate
      >
        <p className="lead" role="status">
          {t('login.codeSent', { phone: `+${area} ${phone}` })}
        </p>
        <div className="field">
          <label htmlFor={`${id}-code`}>{t('login.code')}</label>
          <input
            id={`${id}-code`}
            className="code-input"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="\d*"
            maxLength={CODE_LENGTH}
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, CODE_LENGTH))}
            autoFocus
            aria-invalid={Boolean(error)}
            aria-describedby={`${id}-err`}
          />
        </div>
        <p id={`${id}-err`} className="field-error" role="alert">
          {error}
        </p>
        <button type="submit" className="button primary block" disabled={busy}>
          {t('login.login')}
        </button>
        <button
          type="button"
          className="button link"
          onClick={() => {
            newCaptcha();
            setStep('phone');
          }}
        >
          {t('login.noSms')}
        </button>
      </form>
    );
  }

  return (
    <form
      className="login-form"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      noValidate
    >
      <div className="field">
        <label htmlFor={`${id}-phone`}>{t('login.phone')}</label>
        <div className="phone-row">
          <button
            type="button"
            className="button area-button"
            onClick={() => setPicker(true)}
            aria-label={t('login.area.button', { code: area })}
          >
            +{area}
          </button>
          <input
            id={`${id}-phone`}
            type="tel"
            inputMode="tel"
            autoComplete="tel-national"
            value={phone}
            onChange={(e) => setPhone(e.target.value)}
            aria-describedby={`${id}-err`}
          />
        </div>
      </div>
      <div className="field">
        {captchaMode === 'picture' ? (
          <>
            <label htmlFor={`${id}-captcha`}>{t('login.captcha')}</label>
            <div className="captcha-row">
              <input
                id={`${id}-captcha`}
                autoComplete="off"
                autoCapitalize="off"
                maxLength={8}
                value={captcha}
                onChange={(e) => setCaptcha(e.target.value)}
              />
              <button
                type="button"
                className="captcha-image"
                onClick={newCaptcha}
                aria-label={t('login.captchaRefresh')}
              >
                <img src={captchaUrl(uuid, nonce)} alt={t('login.captchaAlt')} width={120} height={44} />
              </button>
            </div>
          </>
        ) : (
          <>
            <label htmlFor={`${id}-captcha`}>{t('login.captchaAnswer')}</label>
            <p id={`${id}-question`} className="captcha-question" aria-live="polite">
              {question || t('common.loading')}
            </p>
            <input
              id={`${id}-captcha`}
              autoComplete="off"
              inputMode="numeric"
              maxLength={8}
              value={captcha}
              onChange={(e) => setCaptcha(e.target.value)}
              aria-describedby={`${id}-question`}
            />
          </>
        )}
        <button
          type="button"
          className="button link captcha-switch"
          onClick={() => {
            setCaptchaMode(captchaMode === 'picture' ? 'question' : 'picture');
            newCaptcha();
          }}
        >
          {t(captchaMode === 'picture' ? 'login.captchaUseQuestion' : 'login.captchaUsePicture')}
        </button>
      </div>
      <p className="agreement">
        {t('login.agreementPrefix')}{' '}
        <button
          type="button"
          className="button link inline"
          onClick={() => void showMessage({ title: t('login.agreementTitle'), text: t('login.agreementText') })}
        >
          {t('login.agreementLink')}
        </button>
      </p>
      <p id={`${id}-err`} className="field-error" role="alert">
        {error}
      </p>
      <button type="submit" className="button primary block" disabled={busy} aria-busy={busy}>
        {t('login.sendCode')}
      </button>
      <AreaPicker
        open={picker}
        value={area}
        onClose={() => setPicker(false)}
        onConfirm={(o) => {
          setArea(o.value);
          setPicker(false);
        }}
      />
    </form>
  );
}
