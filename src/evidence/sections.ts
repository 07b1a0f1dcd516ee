// The sections of an evidence PDF after its first block (render.ts), each from the record alone:
// what they say is what the lookup said, in the same words (the rationale sentences are the
// verdict's, the compensation's and the circumstances' own).
import { shownArrivalDelay, shownLocal, type FlightStatusData } from '../flights/index.js';
import { BOLD, iso, MUTED, type Writer } from './layout.js';
import type { EvidencePage } from './render.js';

type Compensation = NonNullable<FlightStatusData['compensation']>;
type Regime = Compensation['eu261'] | Compensation['uk261'];

const words = (text: string) => text.replace(/_/g, ' ');
/** `2026-02-20 14:05` (UTC), or a dash. */
const at = (value: string | null | undefined) => (value ? value.slice(0, 16).replace('T', ' ') : '—');

export function timesSection(w: Writer, data: FlightStatusData): void {
  const r = data.selected!;
  w.heading('Times (UTC, then local at each airport)');
  w.table(
    [
      { title: '', width: 1 },
      { title: 'Departure', width: 2 },
      { title: 'Arrival', width: 2 },
    ],
    [
      ['Scheduled', at(r.scheduledDeparture), at(r.scheduledArrival)],
      ['Estimated', at(r.estimatedDeparture), at(r.estimatedArrival)],
      ['Actual', at(r.actualDeparture), at(r.actualArrival)],
    ],
    'The record',
  );
  const local = data.localTimes;
  if (local) {
    // The same times at the airports' clocks (a boarding pass prints these), with each airport's zone.
    const zone = (end: typeof local.departure) =>
      end.timezone ? `${end.airport ?? ''}, ${end.timezone}` : 'zone not known';
    w.table(
      [
        { title: '', width: 1 },
        { title: `Departure (${zone(local.departure)})`, width: 2 },
        { title: `Arrival (${zone(local.arrival)})`, width: 2 },
      ],
      [
        ['Scheduled', shownLocal(local.departure.scheduled), shownLocal(local.arrival.scheduled)],
        ['Estimated', shownLocal(local.departure.estimated), shownLocal(local.arrival.estimated)],
        ['Actual', shownLocal(local.departure.actual), shownLocal(local.arrival.actual)],
      ],
      'The record in local time at each airport',
    );
  }
  const rows = data.sources.flatMap((s) => {
    const times = s.times ?? [];
    if (times.length === 0) return [[`${s.provider} (${s.outcome})`, '—', '—', '—']];
    return times.map((t) => [`${s.provider} (${s.outcome})`, t.field, t.kind, at(t.at)]);
  });
  w.table(
    [
      { title: 'Provider (answer)', width: 2 },
      { title: 'Field', width: 2 },
      { title: 'Kind of time', width: 1.5 },
      { title: 'Time', width: 2 },
    ],
    rows,
    "Each source's times",
  );
  w.text(
    "Kinds: block is off- or on-block at the gate; runway is take-off or landing, standing in for a missing block time; revised is an estimate the airline or airport revised; estimated is the provider's own estimate; scheduled is the timetable.",
    { size: 7.5, colour: MUTED },
  );
}

export function verdictSection(w: Writer, data: FlightStatusData): void {
  const d = data.flightDelay;
  w.heading('Verdict');
  if (!d) {
    w.text('No verdict: no time of the flight is known yet.');
    return;
  }
  const minutes = (n: number | null) => (n === null ? '—' : `${n} minutes`);
  // A flight that never reached its destination has no arrival delay (the API's 0 is the field's type), and a cancelled one no departure delay.
  const arrival = shownArrivalDelay(data);
  w.facts([
    ['Delay', arrival === null ? `— (${words(d.statusKind)})` : `${d.delayFormatted} (${words(d.statusKind)})`],
    ['Arrival delay', minutes(data.selected?.delayMinutes ?? null)],
    ['Departure delay', minutes(data.selected?.departureDelayMinutes ?? null)],
    [
      'Disruption',
      `${words(d.disruption.type)}${d.disruption.neverArrived ? '; it never reached its destination' : ''}`,
    ],
    ['Confidence', d.disruption.confidence],
    ['From the providers', d.disruption.sources.join(', ') || '—'],
  ]);
  w.heading('Rationale', 2);
  w.bullets(d.disruption.rationale);
}

function regime(r: Regime, amount: number | null, currency: string): string {
  if (!r.applies) return 'does not apply';
  if (amount === null) return 'applies; nothing is owed for this outcome';
  return `${currency}${amount} per passenger${r.band ? ` (${r.band} band)` : ''}${r.reduced ? ', halved under Art. 7(2)' : ''}`;
}

/** What the assessment rests on: the articles and judgments docs/compensation.md applies. */
const LEGAL_BASIS = [
  'EU261: Regulation (EC) No 261/2004 of the European Parliament and of the Council: scope, Art. 3(1); cancellation, Art. 5; delay, Art. 6; amounts by distance and their halving, Art. 7(1) and 7(2); extraordinary circumstances, Art. 5(3); diversion to an airport serving the same city or region, Art. 8(3).',
  'Delays of 3 hours or more at arrival are owed as cancellations are: Court of Justice of the EU, C-402/07 and C-432/07 Sturgeon (2009), C-581/10 and C-629/10 Nelson (2012); a diversion near the destination is measured on the final arrival: C-826/19 Austrian Airlines (2021).',
  'UK261: the same Regulation as retained in UK law by the European Union (Withdrawal) Act 2018 and amended by The Air Passenger Rights and Air Travel Organisers’ Licensing (Amendment) (EU Exit) Regulations 2019, SI 2019/278, amounts in pounds sterling.',
  'Claim deadlines: the Regulation sets none; the national limitation period of the court seized applies (C-139/11 Moré v KLM, 2012).',
];

export function compensationSection(w: Writer, data: FlightStatusData): void {
  const c = data.compensation;
  w.heading('EU261 / UK261 assessment');
  if (!c) {
    w.text(
      'Not assessed: the record is not settled (complete) or lacks its route, so what is owed cannot be said yet.',
    );
    return;
  }
  w.facts([
    ['EU261', regime(c.eu261, c.eu261.amountEur, '€')],
    ['UK261', regime(c.uk261, c.uk261.amountGbp, '£')],
    ['Distance', `${c.distanceKm.toLocaleString('en')} km, great circle`],
    ...(c.amountAtRisk === undefined
      ? []
      : [
          [
            'Amount at risk',
            c.amountAtRisk === null
              ? 'not known: the circumstances could not be checked'
              : c.amountAtRisk
                ? 'yes: the circumstances below may be extraordinary (Art. 5(3))'
                : 'no: the circumstances below do not point to extraordinary ones',
          ] as const,
        ]),
  ]);
  w.heading('Rationale', 2);
  w.bullets(c.rationale);
  w.heading('Legal basis', 2);
  w.bullets(LEGAL_BASIS);
  if (c.deadlines && c.deadlines.length > 0) {
    w.heading('Claim deadlines', 2);
    w.text(
      'National limitation periods in the countries connected to the flight, soonest first; the court seized applies its own.',
      { colour: MUTED },
    );
    for (const d of c.deadlines) {
      const period = `${d.period}${d.runsFrom === 'end_of_year' ? ' from the end of the year' : ''}${d.uncertain ? ' (sources disagree)' : ''}`;
      w.text(`${d.country}, because of the ${d.connections.join(' and ')}: ${period}, runs out on ${d.runsOutOn}`, {
        font: BOLD,
        after: 1,
      });
      w.text([d.note, ...d.sources].filter(Boolean).join(' · '), { size: 7.5, colour: MUTED, indent: 12, after: 4 });
    }
  }
}

export function circumstancesSection(w: Writer, data: FlightStatusData): void {
  const c = data.circumstances;
  w.heading('Circumstances');
  if (!c) {
    w.text(
      'None assessed: circumstances are given for a settled flight 3 hours or more late at arrival, cancelled or diverted.',
    );
    return;
  }
  const leg = c.originLeg;
  w.facts([
    ['Cause', words(c.cause)],
    ['Extraordinary (Art. 5(3))', words(c.assessment)],
    ...(leg
      ? [
          [
            'Started on',
            `${leg.flightNumber} ${leg.origin} → ${leg.destination} on ${leg.flightDate}, an earlier flight of the same aircraft`,
          ] as const,
        ]
      : []),
  ]);
  w.heading('Reasons', 2);
  w.bullets(c.reasons);
  if (c.weather.length > 0) {
    w.table(
      [
        { title: 'Airport', width: 0.8 },
        { title: 'Observed (UTC)', width: 2 },
        { title: 'Shows', width: 1.7 },
        { title: 'Report (METAR, as issued)', width: 4.6 },
      ],
      c.weather.map((r) => [
        r.airport,
        at(r.at),
        r.flags.length > 0 ? r.flags.map(words).join(', ') : 'nothing that matters',
        r.report,
      ]),
      'Weather reports consulted, in time order',
    );
  }
  if (c.airport.length > 0) {
    w.table(
      [
        { title: 'Airport', width: 0.8 },
        { title: 'Window (UTC)', width: 3 },
        { title: 'Cancelled (usual)', width: 1.5, align: 'right' },
        { title: 'Delayed (usual)', width: 1.5, align: 'right' },
      ],
      c.airport.map((a) => [
        a.airport,
        `${at(a.from)} – ${at(a.to)}`,
        `${a.cancelled} (${a.usual.cancelled})`,
        `${a.delayed} (${a.usual.delayed})`,
      ]),
      "What the airports' boards showed (the usual: the same window on the seven days before, or where the boards were read after the day, its flights × the published shares delayed and cancelled)",
    );
  }
  if (c.seen) {
    const window = (s: { from: string; to: string }) => `${at(s.from)} – ${at(s.to)}`;
    w.table(
      [
        { title: 'Part', width: 1 },
        { title: 'Airport', width: 0.8 },
        { title: 'Window (UTC)', width: 3 },
        { title: 'Looked at', width: 1.6 },
      ],
      [
        ...c.seen.weather.map((s) => ['Weather', s.airport, window(s), words(s.status)]),
        ...c.seen.boards.map((s) => ['Boards', s.airport, window(s), words(s.status)]),
        ['Aircraft', '—', '—', words(c.seen.aircraft)],
      ],
      'What was looked at, and what could not be',
    );
  }
}

export function sourcesSection(w: Writer, data: FlightStatusData): void {
  w.heading('Sources');
  w.table(
    [
      { title: 'Provider', width: 1.2 },
      { title: 'Answer', width: 1 },
      { title: 'Fields of the record it supplied', width: 4 },
      { title: 'Error', width: 2 },
    ],
    data.sources.map((s) => [
      s.provider,
      s.outcome,
      s.fields.join(', ') || '—',
      s.error ? `${s.error.kind}: ${s.error.message}` : '—',
    ]),
  );
  const r = data.selected!;
  w.text(
    `The record comes from ${r.source}${r.statusRaw ? `, whose status text read “${r.statusRaw}”` : ''}; providers are asked in the configured order and merged field by field.`,
  );
}

export function productionSection(w: Writer, page: EvidencePage): void {
  // Without FLIGHTSTATUS_PUBLIC_URL the service does not know the address its clients use.
  const keyUrl = `${page.publicUrl ?? 'https://SERVICE'}/api/v1/evidence/key`;
  w.heading('How this document was produced');
  w.facts([
    ['Produced', `${iso(page.producedAt)} (the service clock), by Flight Status Service ${page.version}`],
    [
      'Record',
      `Attached to this PDF as record.json (${page.record.bytes.length.toLocaleString('en')} bytes): the answer of GET /api/v1/flights/status for this flight as canonical JSON (keys sorted, no white space), without what only describes that answer (the resolve's timings, whether it was replayed or stored) and without the proof image.`,
    ],
    ['Record SHA-256', page.record.sha256],
    [
      'Record signature',
      `Ed25519 by the evidence key, attached as record.json.sig (64 bytes): ${page.recordSignature.toString('base64')}`,
    ],
    ['Evidence key', `Ed25519; SHA-256 of its public key (DER): ${page.keyFingerprint}. Served at ${keyUrl}.`],
    [
      'Document signature',
      'The line “%FlightStatus-Signature: ed25519 …” after this PDF’s first %%EOF is an Ed25519 signature of every byte before it. The line above it, “%FlightStatus-Evidence: …”, says where record.json lies in the file, repeats its hash and signature, and names the PDF signature’s certificate.',
    ],
    [
      'PDF signature',
      `PAdES (ETSI.CAdES.detached) over the whole file, shown by PDF readers, by “${page.pdfSigner.name}”${page.pdfSigner.selfSigned ? ' (self-signed, derived from the evidence key)' : ''}; SHA-256 of its certificate: ${page.pdfSigner.fingerprint}.`,
    ],
  ]);
  w.heading('To check it', 2);
  w.text(
    "With the service's command line: flightstatus evidence verify FILE.pdf --url SERVICE. With OpenSSL 3 and a POSIX shell (docs/evidence.md explains each step):",
    { after: 4 },
  );
  for (const line of [
    `curl -s '${keyUrl}?format=pem' > evidence-key.pem`,
    'head -c "$(grep -a -b \'^%FlightStatus-Signature: \' FILE.pdf | tail -n 1 | cut -d: -f1)" FILE.pdf > signed.bin',
    "grep -a '^%FlightStatus-Signature: ' FILE.pdf | tail -n 1 | cut -d' ' -f3 | openssl base64 -d -A > document.sig",
    'openssl pkeyutl -verify -pubin -inkey evidence-key.pem -rawin -in signed.bin -sigfile document.sig',
  ]) {
    w.text(line, { size: 7.5, indent: 12, after: 1 });
  }
  w.text(
    '“Signature Verified Successfully” means the file is the one the service produced, byte for byte, attachments included; a PDF reader’s signature panel shows the PDF signature.',
    { font: BOLD, size: 8.5 },
  );
}
