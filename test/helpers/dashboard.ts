// A browser in miniature for the dashboard's route tests (through inject): it keeps the cookies the
// service sets, reads each page's CSRF token, and posts forms the way a browser would.
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.js';

export const PASSWORD = 'correct horse battery';

export class Visitor {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page read. */
  csrf = '';

  constructor(private readonly t: TestApp) {}

  private cookieHeader(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ') };
  }

  private keep(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of response.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      if (c.value === '' || c.maxAge === 0 || (c.expires && c.expires.getTime() <= Date.now()))
        this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.csrf = token;
    return response;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.t.app.http.inject({ method: 'GET', url, headers: { ...this.cookieHeader(), ...headers } }),
    );
  }

  /** Posts `fields` as a form with this visitor's CSRF token (unless `fields` gives its own `_csrf`). */
  async post(
    url: string,
    fields: Record<string, string> = {},
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams({ _csrf: this.csrf, ...fields }).toString();
    return this.keep(
      await this.t.app.http.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader(), ...headers },
        payload: body,
      }),
    );
  }

  /** Signs up a new account from the sign-up page, then signs in as a person would; resolves once signed in. */
  async signUp(email: string, accountName = 'Acme Claims'): Promise<void> {
    await this.get('/dashboard/sign-up');
    const response = await this.post('/dashboard/sign-up', { accountName, email, password: PASSWORD });
    if (response.statusCode !== 303)
      throw new Error(`sign-up answered ${response.statusCode}: ${response.body.slice(0, 400)}`);
    // Sign-up starts no session (it must answer a taken email alike): sign-in follows.
    await this.get(response.headers.location as string);
    const signedIn = await this.post('/dashboard/sign-in', {
      email,
      password: PASSWORD,
      next: '/dashboard/keys?welcome=1',
    });
    if (signedIn.statusCode !== 303 || !this.cookies.has('fs_session'))
      throw new Error(`sign-in after sign-up answered ${signedIn.statusCode}: ${signedIn.body.slice(0, 400)}`);
  }

  /** A fresh key's plaintext, created on the keys page. */
  async createKey(name: string): Promise<string> {
    await this.get('/dashboard/keys');
    const page = await this.post('/dashboard/keys', { name });
    const key = /id="new-key">([^<]+)</.exec(page.body)?.[1];
    if (!key) throw new Error(`no key on the page: ${page.statusCode}`);
    return key;
  }
}

/** The text of a page without its tags, spaces squeezed (for assertions on what a reader sees). */
export function text(response: LightMyRequestResponse): string {
  return response.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}
