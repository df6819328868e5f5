export { AboutUsApp as default } from './WebView.tsx';
