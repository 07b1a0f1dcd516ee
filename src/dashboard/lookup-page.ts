// Look up a flight: the status endpoint as a form. It costs one credit, and the page says so before
// anything is sent; the answer shows the verdict, its rationale, why it was disrupted (the
// circumstances: the weather reports, the origin leg, the airport's figures), the compensation
// assessment with its claim deadlines, the proof image, and a link to the flight's signed evidence PDF.
import { QUERY_PARAMETERS, shownArrivalDelay, shownLocal, type FlightStatusData } from '../flights/index.js';
import { html, type Html } from '../html.js';
import { csrfInput, field, notice, timeTag } from './layout.js';

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
  flightNumber: { required: 'Flight number is required', invalid: 'Flight number must be an airline code and a number, e.g. RO301 or ROT301' },
  flightDate: { required: 'Date of departure is required', invalid: 'Date of departure must be a date between 1970 and 2099, e.g. 2026-03-01' },
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

export function lookupPage(o: { csrf: string; form: LookupForm; remaining: number | null; error?: string | null; errors?: LookupErrors; result?: FlightStatusData }): Html {
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

type Found = NonNullable<FlightStatusData['circumstances']>;
const words = (text: string) => text.replace(/_/g, ' ');

/** Why it was disrupted: the finding, then its evidence. */
function circumstances(c: Found): Html {
  const leg = c.originLeg;
  return html`<h3 id="circumstances">Circumstances</h3>
    <dl class="stats">
      <div><dt>Cause</dt><dd>${words(c.cause)}</dd></div>
      <div><dt>Extraordinary (Art. 5(3))</dt><dd>${words(c.assessment)}</dd></div>
      ${leg ? html`<div><dt>Started on</dt><dd>${leg.flightNumber} ${leg.origin} → ${leg.destination}, ${leg.flightDate}</dd></div>` : ''}
    </dl>
    <ul>${c.reasons.map((line) => html`<li>${line}</li>`)}</ul>
    ${
      c.weather.length > 0
        ? html`<table><caption>Weather reports consulted, in time order</caption><thead><tr><th scope="col">Airport</th><th scope="col">Observed</th><th scope="col">Shows</th><th scope="col">METAR</th></tr></thead><tbody>
            ${c.weather.map((w) => html`<tr><td>${w.airport}</td><td>${timeTag(w.at)}</td><td>${w.flags.length > 0 ? w.flags.map(words).join(', ') : 'nothing that matters'}</td><td><code>${w.report}</code></td></tr>`)}
          </tbody></table>`
        : ''
    }
    ${
      c.airport.length > 0
        ? html`<table><caption>What the airports' boards showed</caption><thead><tr><th scope="col">Airport</th><th scope="col">Window</th><th scope="col">Cancelled (usual)</th><th scope="col">Delayed (usual)</th></tr></thead><tbody>
            ${c.airport.map((a) => html`<tr><td>${a.airport}</td><td>${timeTag(a.from)} → ${timeTag(a.to)}</td><td>${a.cancelled} (${a.usual.cancelled})</td><td>${a.delayed} (${a.usual.delayed})</td></tr>`)}
          </tbody></table>`
        : ''
    }
    ${c.seen ? seen(c.seen) : ''}`;
}

/** What was looked at, and what could not be (absent on a replay of a record stored before it was given). */
function seen(s: NonNullable<Found['seen']>): Html {
  return html`<table id="seen"><caption>What was looked at, and what could not be</caption><thead><tr><th scope="col">Part</th><th scope="col">Airport</th><th scope="col">Window</th><th scope="col">Looked at</th></tr></thead><tbody>
      ${s.weather.map((s) => html`<tr><td>Weather</td><td>${s.airport}</td><td>${timeTag(s.from)} → ${timeTag(s.to)}</td><td>${words(s.status)}</td></tr>`)}
      ${s.boards.map((s) => html`<tr><td>Boards</td><td>${s.airport}</td><td>${timeTag(s.from)} → ${timeTag(s.to)}</td><td>${words(s.status)}</td></tr>`)}
      <tr><td>Aircraft</td><td>—</td><td>—</td><td>${words(s.aircraft)}</td></tr>
    </tbody></table>`;
}

function deadlines(list: NonNullable<NonNullable<FlightStatusData['compensation']>['deadlines']>): Html {
  return html`<table><caption>Claim deadlines (national limitation periods, C-139/11)</caption><thead><tr><th scope="col">Country</th><th scope="col">Because of the</th><th scope="col">Period</th><th scope="col">Runs out</th></tr></thead><tbody>
    ${list.map((d) => html`<tr><td>${d.country}</td><td>${d.connections.join(', ')}</td><td>${d.period}${d.runsFrom === 'end_of_year' ? ' from the end of the year' : ''}${d.uncertain ? ' (sources disagree)' : ''}</td><td>${d.runsOutOn}</td></tr>`)}
  </tbody></table>`;
}

const euros = (n: number | null) => (n === null ? 'nothing owed' : `€${n}`);
const pounds = (n: number | null) => (n === null ? 'nothing owed' : `£${n}`);

/** The evidence PDF of the flight shown: the same query as the lookup, with the page's CSRF token (it takes a credit). */
function evidenceLink(form: LookupForm, csrf: string): string {
  const given = Object.entries(form).filter(([, v]) => v !== undefined && v.trim() !== '') as [string, string][];
  return `/dashboard/evidence?${new URLSearchParams([...given, ['_csrf', csrf]]).toString()}`;
}

function result(data: FlightStatusData, evidence: string): Html {
  const r = data.selected;
  if (!r) {
    return html`<section aria-labelledby="result-heading"><h2 id="result-heading">${data.flightNumber} on ${data.flightDate}</h2>
      <p>No such flight was found on that date${data.originIata ? html` from ${data.originIata}` : ''}.</p>
      ${data.rationale ? html`<ul>${data.rationale.map((line) => html`<li>${line}</li>`)}</ul>` : ''}</section>`;
  }
  const d = data.flightDelay;
  const c = data.compensation;
  return html`<section aria-labelledby="result-heading">
    <h2 id="result-heading">${data.flightNumber} ${data.originIata ?? ''} → ${data.destinationIata ?? ''} on ${data.flightDate}${data.dateBasis === 'local' ? ' (local date)' : ''}</h2>
    <dl class="stats">
      <div><dt>Verdict</dt><dd>${r.status.replace('_', ' ')}</dd></div>
      <div><dt>Delay</dt><dd>${d && shownArrivalDelay(data) !== null ? d.delayFormatted : '—'}</dd></div>
      <div><dt>Confidence</dt><dd>${d ? d.disruption.confidence : '—'}</dd></div>
      <div><dt>Settled</dt><dd>${r.complete ? 'yes' : 'not yet'}</dd></div>
    </dl>
    <table><tbody>
      <tr><th scope="row">Scheduled</th><td>${timeTag(r.scheduledDeparture)} → ${timeTag(r.scheduledArrival)}</td></tr>
      <tr><th scope="row">Actual</th><td>${timeTag(r.actualDeparture)} → ${timeTag(r.actualArrival)}</td></tr>
      ${
        data.localTimes
          ? html`<tr><th scope="row">Scheduled, local</th><td id="local-scheduled">${shownLocal(data.localTimes.departure.scheduled)} → ${shownLocal(data.localTimes.arrival.scheduled)}</td></tr>
              <tr><th scope="row">Actual, local</th><td>${shownLocal(data.localTimes.departure.actual)} → ${shownLocal(data.localTimes.arrival.actual)}</td></tr>`
          : ''
      }
      <tr><th scope="row">Source</th><td>${r.source}${r.statusRaw ? html` (“${r.statusRaw}”)` : ''}</td></tr>
    </tbody></table>
    ${d ? html`<h3>Why</h3><ul>${d.disruption.rationale.map((line) => html`<li>${line}</li>`)}</ul>` : ''}
    ${data.circumstances ? circumstances(data.circumstances) : ''}
    <h3>Compensation</h3>
    ${
      c
        ? html`<p>EU261: ${c.eu261.applies ? euros(c.eu261.amountEur) : 'does not apply'} · UK261: ${c.uk261.applies ? pounds(c.uk261.amountGbp) : 'does not apply'} · ${c.distanceKm.toLocaleString('en-US')} km</p>
            <ul>${c.rationale.map((line) => html`<li>${line}</li>`)}</ul>
            ${c.deadlines?.length ? deadlines(c.deadlines) : ''}`
        : html`<p>Assessed once the flight is settled.</p>`
    }
    <h3>Evidence</h3>
    <p><a href="${evidence}" id="evidence-link">Evidence PDF</a> (1 credit): the proof image, every source's times, the verdict, the assessment and the circumstances in one document signed by the service, for a letter or a court filing. <code>flightstatus evidence verify</code> checks it.</p>
    <h3>Proof</h3>
    ${
      data.proof
        ? html`<img class="proof" src="data:image/png;base64,${data.proof.data}" width="${data.proof.width}" height="${data.proof.height}" alt="Proof image: ${data.flightNumber} on ${data.flightDate}, ${r.status.replace('_', ' ')}${d && shownArrivalDelay(data) !== null ? `, ${d.delayFormatted}` : ''}, rendered ${data.proof.producedAt}">
            <p class="hint">SHA-256 ${data.proof.sha256}</p>`
        : html`<p>${data.proofError ?? 'No proof image for this answer.'}</p>`
    }
  </section>`;
}
