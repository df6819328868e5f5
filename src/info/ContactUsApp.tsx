export { ContactUsApp as default } from './WebView.tsx';
