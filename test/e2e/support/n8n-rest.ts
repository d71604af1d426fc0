// n8n's internal REST API (/rest) as the instance owner, as the editor calls it: set-up or sign-in, then requests with its cookie.
import { parseJsonOrUndefined } from './n8n-harness';

/** The owner the e2e suites sign up as on a fresh instance. */
export const OWNER = { email: 'owner@agent-core.example.com', firstName: 'Agent', lastName: 'Core', password: 'E2e-Owner-Password-1' };
/** n8n binds its auth cookie (n8n-auth) to the browser-id header it was issued with. */
const BROWSER_ID = 'agent-core-e2e-browser';

export interface RestResponse {
  status: number;
  text: string;
  body: any;
}

/**
 * The owner's session. `POST /rest/owner/setup` is accepted once, on an instance without an owner, and
 * answers with the auth cookie; after that `POST /rest/login` (`emailOrLdapLoginId`, as in n8n 1.123 and
 * 2.41: controllers/auth.controller.ts) gives one.
 */
export class OwnerSession {
  private cookie = '';

  constructor(private readonly origin: string) {}

  async signIn(): Promise<void> {
    const setUp = await this.request('POST', '/rest/owner/setup', OWNER);
    if (setUp.status === 200 && this.cookie) return;
    const signedIn = await this.request('POST', '/rest/login', { emailOrLdapLoginId: OWNER.email, password: OWNER.password });
    if (signedIn.status !== 200) throw new Error(`n8n refused the owner set-up (${setUp.status}: ${setUp.text.slice(0, 500)}) and the sign-in (${signedIn.status}: ${signedIn.text.slice(0, 500)})`);
  }

  async request(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<RestResponse> {
    const response = await fetch(`${this.origin}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID, ...(this.cookie ? { cookie: this.cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30000),
    });
    const issued = response.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
    if (issued) this.cookie = issued.split(';')[0];
    const text = await response.text();
    return { status: response.status, text, body: parseJsonOrUndefined(text) };
  }
}
