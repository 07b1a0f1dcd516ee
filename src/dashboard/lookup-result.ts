// The answer on the lookup page: the verdict, its rationale, why it was disrupted (the circumstances:
// the weather reports, the origin leg, the airport's figures), the compensation assessment with its
// claim deadlines, the proof image, and a link to the flight's signed evidence PDF.
import { shownArrivalDelay, shownLocal, type FlightStatusData } from '../flights/index.js';
import { html, type Html } from '../html.js';
import { timeTag } from './layout.js';

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

export function result(data: FlightStatusData, evidence: string): Html {
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
            <p class="hint">SHA-256 <code class="hash">${data.proof.sha256}</code></p>`
        : html`<p>${data.proofError ?? 'No proof image for this answer.'}</p>`
    }
  </section>`;
}
