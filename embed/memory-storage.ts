// Imported FIRST by the iframe page: every persistent store (token, qrcode, lang …) lives in this page's
// memory only. The embed never writes the session token to localStorage, sessionStorage or a cookie.
import { setPersistentEngine } from '@nanostores/persistent';

const memory: Record<string, string> = {};
setPersistentEngine(memory, { addEventListener() {}, removeEventListener() {} });
