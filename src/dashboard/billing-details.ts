// The account's billing details on the Billing page: the legal name, address, country, VAT id and
// billing email its invoices are addressed and mailed to (docs/billing.md). Checked as the operator's
// API checks them (BillingService.billingEmail.save); each problem is shown beside its field, in the
// form's words. What was typed is kept when something is wrong. A billing email gets mail only once
// confirmed by the link mailed to it: the page says whether it is, and sends the link again.
import type { Buyer } from '../billing/index.js';
import { html, type Html } from '../html.js';
import { csrfInput, field, notice } from './layout.js';

export const DETAIL_FIELDS = {
  name: 'Legal name',
  address: 'Address',
  country: 'Country',
  vatId: 'VAT id',
  email: 'Billing email',
} as const;
export type DetailField = keyof typeof DETAIL_FIELDS;

export interface DetailsForm {
  values: Record<DetailField, string>;
  errors: Partial<Record<DetailField, string>>;
  /** Saved; `confirm`: and a confirmation link was mailed to the new billing email. */
  saved?: boolean | 'confirm';
}

/** The stored billing email and whether it is confirmed; a problem or news of the link sent again. */
export interface EmailState {
  address: string | null;
  confirmed: boolean;
  error?: string;
  sent?: boolean;
}

/** The form's values for what is stored. */
export const detailValues = (b: Buyer): Record<DetailField, string> => ({
  name: b.name ?? '',
  address: b.address.join('\n'),
  country: b.country ?? '',
  vatId: b.vatId ?? '',
  email: b.email ?? '',
});

/** "country must be …; vatId must …" (the service's message, fields unprefixed) → each field's sentence, in the form's words. */
export function detailErrors(message: string): Partial<Record<DetailField, string>> {
  const errors: Partial<Record<DetailField, string>> = {};
  for (const part of message.split('; ')) {
    const key = (Object.keys(DETAIL_FIELDS) as DetailField[]).find((k) => part.startsWith(`${k} `));
    if (key) errors[key] = `${DETAIL_FIELDS[key]} ${part.slice(key.length + 1)}`;
  }
  return errors;
}

export function billingDetails(o: { form: DetailsForm; csrf: string; mailOn: boolean; email: EmailState }): Html {
  const { values, errors } = o.form;
  const addressId = 'f-address';
  return html`<h2 id="billing-details">Billing details</h2>
    <p class="hint">What your invoices are addressed to. An invoice keeps the details it was issued with; changes apply to the next one. ${
      o.mailOn
        ? 'Invoices and receipts are mailed to the billing email once it is confirmed, else to the account owner.'
        : ''
    }</p>
    ${o.form.saved ? notice('ok', `Billing details saved: the next invoice is addressed to them.${o.form.saved === 'confirm' ? ` A confirmation link was mailed to ${values.email}: billing mail goes there once it is opened.` : ''}`) : ''}
    ${Object.keys(errors).length > 0 ? notice('bad', 'The billing details were not saved: see the fields marked below.') : ''}
    <form method="post" action="/dashboard/billing/details" novalidate>
      ${csrfInput(o.csrf)}
      ${field({ name: 'name', label: DETAIL_FIELDS.name, value: values.name, error: errors.name, required: false, autocomplete: 'organization', hint: 'As registered; empty: the account name.' })}
      <label for="${addressId}">${DETAIL_FIELDS.address}</label>
      <p class="hint" id="${addressId}-hint">One line per line of the address, up to 6.</p>
      ${errors.address ? html`<p class="error" id="${addressId}-error">${errors.address}</p>` : ''}
      <textarea id="${addressId}" name="address" rows="4" autocomplete="street-address" aria-describedby="${addressId}-hint${errors.address ? ` ${addressId}-error` : ''}"${
        errors.address ? html` aria-invalid="true"` : ''
      }>${values.address}</textarea>
      ${field({ name: 'country', label: DETAIL_FIELDS.country, value: values.country, error: errors.country, required: false, autocomplete: 'country', hint: 'Two-letter code: DE, FR, US… It decides the VAT on your invoices.' })}
      ${field({ name: 'vatId', label: DETAIL_FIELDS.vatId, value: values.vatId, error: errors.vatId, required: false, hint: 'For a business: with an EU VAT id from another member state than ours, invoices are reverse charged. Checked for its format and check digits.' })}
      ${field({ name: 'email', label: DETAIL_FIELDS.email, type: 'email', value: values.email, error: errors.email, required: false, autocomplete: 'email', hint: 'Where invoices and receipts go once confirmed by the link mailed to it; empty: the account owner.' })}
      <p><button type="submit">Save billing details</button></p>
    </form>
    ${emailState(o.email, o.csrf, o.mailOn)}`;
}

function emailState(state: EmailState, csrf: string, mailOn: boolean): Html {
  if (state.address === null) return html``;
  const told = state.error
    ? notice('bad', state.error)
    : state.sent
      ? notice('ok', `A new confirmation link is on its way to ${state.address}.`)
      : '';
  if (state.confirmed)
    return html`<p id="billing-email-state">Billing email ${state.address} · confirmed: invoices and receipts go to it.</p>`;
  return html`<div id="billing-email-state">${told}
    <p>Billing email ${state.address} · not confirmed yet: billing mail goes to the account owner until the link mailed to it is opened.</p>
    ${
      mailOn
        ? html`<form method="post" action="/dashboard/billing/email/confirm">${csrfInput(csrf)}<button class="secondary" type="submit">Send the confirmation link again</button></form>`
        : html`<p class="hint">This service sends no email, so the billing email cannot be confirmed here: ask its operator to set it.</p>`
    }
  </div>`;
}
