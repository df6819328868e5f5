import { CodeLogin } from './CodeLogin.tsx';
export default function LoginAlipay() {
  return <CodeLogin provider="alipay" />;
}
