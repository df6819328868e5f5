import { CodeLogin } from './CodeLogin.tsx';
export default function LoginWechat() {
  return <CodeLogin provider="wechat" />;
}
