// Sign-up, sign-in, invitations and sign-out: forms that keep what was typed (never the password)
// and show each error next to its field.
import { html, type Html } from '../html.js';
import { csrfInput, field, notice } from './layout.js';
import type { Field } from '../users/index.js';
import { PASSWORD_MIN } from '../users/index.js';

export type Errors = Partial<Record<Field, string>>;

export function signInPage(o: {
  csrf: string;
  next: string;
  email?: string;
  errors?: Errors;
  signupOpen: boolean;
  notice?: Html;
}): Html {
  return html`<div class="narrow">
    <h1>Sign in</h1>
    ${o.notice ?? ''}
    ${o.errors?.form ? notice('bad', o.errors.form) : ''}
    <form method="post" action="/dashboard/sign-in" novalidate>
      ${csrfInput(o.csrf)}
      <input type="hidden" name="next" value="${o.next}">
      ${field({ name: 'email', label: 'Email', type: 'email', value: o.email ?? '', error: o.errors?.email, autocomplete: 'username' })}
      ${field({ name: 'password', label: 'Password', type: 'password', error: o.errors?.password, autocomplete: 'current-password' })}
      <p><button type="submit">Sign in</button> <a href="/dashboard/forgot-password">Forgot your password?</a></p>
    </form>
    ${o.signupOpen ? html`<p>New here? <a href="/dashboard/sign-up">Create an account</a>.</p>` : html`<p class="hint">Accounts are created by invitation from the operator of this service.</p>`}
  </div>`;
}

export function signUpPage(o: {
  csrf: string;
  email?: string;
  accountName?: string;
  errors?: Errors;
  invite?: string;
}): Html {
  const action = o.invite ? `/dashboard/invite/${o.invite}` : '/dashboard/sign-up';
  return html`<div class="narrow">
    <h1>${o.invite ? 'Accept your invitation' : 'Create an account'}</h1>
    ${o.errors?.form ? notice('bad', o.errors.form) : ''}
    <form method="post" action="${action}" novalidate>
      ${csrfInput(o.csrf)}
      ${o.invite ? '' : field({ name: 'accountName', label: 'Company or project name', value: o.accountName ?? '', error: o.errors?.accountName, autocomplete: 'organization', hint: 'Shown on your dashboard.' })}
      ${field({ name: 'email', label: 'Email', type: 'email', value: o.email ?? '', error: o.errors?.email, autocomplete: 'username' })}
      ${field({ name: 'password', label: 'Password', type: 'password', error: o.errors?.password, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN} characters.` })}
      <p><button type="submit">${o.invite ? 'Create my sign-in' : 'Create account'}</button></p>
    </form>
    <p>Already have an account? <a href="/dashboard/sign-in">Sign in</a>.</p>
  </div>`;
}

/**
 * After sign-up, for a new email and for one that already had an account alike (the page must not
 * tell them apart): the person signs in next with the password they know.
 */
export function signedUpNotice(): Html {
  return notice(
    'ok',
    'Thank you. If this email is new here, its account is ready: sign in with the email and password you just chose. If it already had an account, nothing was changed: sign in with that account’s password.',
  );
}

export function closedPage(): Html {
  return html`<div class="narrow">
    <h1>Sign-up is closed</h1>
    <p>Accounts on this service are created by invitation. Ask its operator for an invitation link, or <a href="/dashboard/sign-in">sign in</a>.</p>
  </div>`;
}

export function invalidInvitePage(): Html {
  return html`<div class="narrow">
    <h1>This invitation cannot be used</h1>
    <p>The link has expired or was already used. Ask the operator for a new one, or <a href="/dashboard/sign-in">sign in</a>.</p>
  </div>`;
}
