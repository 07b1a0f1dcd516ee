// Look up a flight: the status endpoint as a form. It costs one credit, and the page says so before
// anything is sent; a mistake is shown beside its field. The answer is lookup-result.ts.
import { QUERY_PARAMETERS, type FlightStatusData } from '../flights/index.js';
import { html, type Html } from '../html.js';
import { csrfInput, field, notice } from './layout.js';
import { result } from './lookup-result.js';

export interface LookupForm {
  flightNumber?: string;
  flightDate?: string;
  /** utc (the default) or local: what the date is (the API's dateBasis). */
  dateBasis?: string;
  origin?: string;
  destination?: string;
}

/** What is wrong with each field, in the form's own words (the API's parser decides, by field). */
export type LookupErrors = Partial<Record<keyof LookupForm, string>>;

const WORDS: Record<keyof LookupForm, { required?: string; invalid: string }> = {
  flightNumber: {
    required: 'Flight number is required',
    invalid: 'Flight number must be an airline code and a number, e.g. RO301 or ROT301',
  },
  flightDate: {
    required: 'Date of departure is required',
    invalid: 'Date of departure must be a date between 1970 and 2099, e.g. 2026-03-01',
  },
  dateBasis: { invalid: 'Choose whether the date is in UTC or local time at the departure airport' },
  origin: { invalid: 'From must be a 3-letter airport code, e.g. OTP' },
  destination: { invalid: 'To must be a 3-letter airport code, e.g. CDG' },
};

/** Each field checked by the parameter the API reads it as; empty when the form can be sent. */
export function lookupErrors(form: LookupForm): LookupErrors {
  const errors: LookupErrors = {};
  for (const name of Object.keys(WORDS) as (keyof LookupForm)[]) {
    const value = form[name]?.trim() ?? '';
    const words = WORDS[name];
    if (value === '') {
      if (words.required) errors[name] = words.required;
      continue;
    }
    const parameter = QUERY_PARAMETERS.find((p) => p.name === name)!;
    if (!parameter.parse(value).ok) errors[name] = words.invalid;
  }
  return errors;
}

export function lookupPage(o: {
  csrf: string;
  form: LookupForm;
  remaining: number | null;
  error?: string | null;
  errors?: LookupErrors;
  result?: FlightStatusData;
}): Html {
  const e = o.errors ?? {};
  const f = o.form;
  const cost =
    o.remaining === null
      ? 'Each lookup is a request to the flight status endpoint (this account is not counted against an allowance).'
      : `Each lookup takes one credit, like a request to the API: ${o.remaining.toLocaleString('en-US')} left in this window.`;
  return html`<h1>Look up a flight</h1>
    <p id="lookup-cost">${cost} A form with a mistake is not sent and costs nothing.</p>
    ${o.error ? notice('bad', o.error) : ''}
    <form method="post" action="/dashboard/lookup" novalidate aria-describedby="lookup-cost">
      ${csrfInput(o.csrf)}
      ${field({ name: 'flightNumber', label: 'Flight number', value: f.flightNumber ?? '', error: e.flightNumber, hint: 'IATA or ICAO, e.g. RO301 or ROT301.' })}
      ${field({ name: 'flightDate', label: 'Date of departure', type: 'date', value: f.flightDate ?? '', error: e.flightDate })}
      ${basisChoice(f.dateBasis, e.dateBasis)}
      ${field({ name: 'origin', label: 'From (optional)', value: f.origin ?? '', error: e.origin, required: false, hint: 'IATA airport code, when the number flies several legs that day.' })}
      ${field({ name: 'destination', label: 'To (optional)', value: f.destination ?? '', error: e.destination, required: false })}
      <p><button type="submit">Look up (1 credit)</button></p>
    </form>
    ${o.result ? result(o.result, evidenceLink(o.form, o.csrf)) : ''}`;
}

/** Whether the date is UTC (the API's default) or the departure airport's local date, as a boarding pass prints it. */
function basisChoice(value: string | undefined, error: string | undefined): Html {
  const local = value === 'local';
  return html`<fieldset${error ? html` aria-invalid="true"` : ''}><legend>The date is</legend>
      ${error ? html`<p class="error" id="f-dateBasis-error">${error}</p>` : ''}
      <label><input type="radio" name="dateBasis" value="utc"${local ? '' : html` checked`}> in UTC</label>
      <label><input type="radio" name="dateBasis" value="local"${local ? html` checked` : ''}> local at the departure airport, as on a boarding pass</label>
    </fieldset>`;
}

/** The evidence PDF of the flight shown: the same query as the lookup, with the page's CSRF token (it takes a credit). */
function evidenceLink(form: LookupForm, csrf: string): string {
  const given = Object.entries(form).filter(([, v]) => v !== undefined && v.trim() !== '') as [string, string][];
  return `/dashboard/evidence?${new URLSearchParams([...given, ['_csrf', csrf]]).toString()}`;
}
