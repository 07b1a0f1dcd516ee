// The proof: a PNG card of a record that a claims handler can attach to a letter (flight, route
// with airport names, date, scheduled / estimated / actual times, delay, verdict, sources, when it
// was produced). Drawn with @napi-rs/canvas (Skia, prebuilt, no browser) in the Inter typeface that
// the project's own dependencies install (@expo-google-fonts/inter), so it renders the same on any
// machine without system fonts (its text laid out by proof-text.ts), and encoded as PNG by Node's
// zlib (png.ts). Never stored; attached to `data.proof` as base64 with its SHA-256.
//
// The canvas is a native module with a prebuilt binary per platform. It is loaded on the first
// proof asked for, not at start-up, so a platform without its binary still starts, answers
// `--help` and serves every lookup; a lookup with screenshot=1 then gets `proof: null` and the
// reason in `proofError` (ProofUnavailableError), never a 5xx.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { SKRSContext2D } from '@napi-rs/canvas';
import { encodePng } from './png.js';
import { BOLD, fit, font, LINE, REGULAR, verdictBlocks } from './proof-text.js';
import type { ReferenceAirports } from '../airports/index.js';
import type { FlightStatusData } from './schema.js';

export const PROOF_WIDTH = 1200;
export const PROOF_HEIGHT = 800;

export interface Proof {
  mediaType: 'image/png';
  encoding: 'base64';
  width: number;
  height: number;
  /** SHA-256 of the PNG bytes, lower-case hex. */
  sha256: string;
  producedAt: string;
  data: string;
}

type Align = 'left' | 'right' | 'center';

type CanvasModule = typeof import('@napi-rs/canvas');
/** How the canvas module is loaded: the real package by default; tests pass a failing import. */
export type CanvasLoader = () => Promise<CanvasModule>;
const loadCanvas: CanvasLoader = () => import('@napi-rs/canvas');

/** The proof cannot be drawn on this machine (the canvas module or its fonts did not load). */
export class ProofUnavailableError extends Error {
  override name = 'ProofUnavailableError';
}

function registerFonts(canvas: CanvasModule): void {
  const require = createRequire(import.meta.url);
  canvas.GlobalFonts.registerFromPath(
    require.resolve('@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf'),
    REGULAR,
  );
  canvas.GlobalFonts.registerFromPath(require.resolve('@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf'), BOLD);
}

const COLOURS: Record<string, string> = {
  delayed: '#c2410c',
  cancelled: '#b91c1c',
  diverted: '#7c3aed',
  on_time: '#15803d',
  not_found: '#475569',
};
const INK = '#0f172a';
const MUTED = '#64748b';
const RULE = '#e2e8f0';

export class ProofRenderer {
  /** The loaded canvas, or the reason it cannot load: a missing binary does not appear later. */
  private canvas: Promise<CanvasModule> | undefined;

  constructor(
    private readonly airports: ReferenceAirports,
    private readonly load: CanvasLoader = loadCanvas,
  ) {}

  /** Throws ProofUnavailableError when the canvas cannot be loaded on this machine. */
  async render(data: FlightStatusData, producedAt: number): Promise<Proof> {
    const { createCanvas } = await this.module();
    const canvas = createCanvas(PROOF_WIDTH, PROOF_HEIGHT);
    const ctx = canvas.getContext('2d');
    this.draw(ctx, data, producedAt);
    const png = await encodePng(canvas.data(), PROOF_WIDTH, PROOF_HEIGHT);
    return {
      mediaType: 'image/png',
      encoding: 'base64',
      width: PROOF_WIDTH,
      height: PROOF_HEIGHT,
      sha256: createHash('sha256').update(png).digest('hex'),
      producedAt: new Date(producedAt).toISOString(),
      data: png.toString('base64'),
    };
  }

  private module(): Promise<CanvasModule> {
    this.canvas ??= (async () => {
      try {
        const canvas = await this.load();
        registerFonts(canvas);
        return canvas;
      } catch (error) {
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new ProofUnavailableError(
          `The proof image is unavailable on this server: the canvas module (@napi-rs/canvas) or its fonts did not load on ${process.platform}-${process.arch} (${reason})`,
        );
      }
    })();
    return this.canvas;
  }

  private draw(ctx: SKRSContext2D, data: FlightStatusData, producedAt: number): void {
    const record = data.selected;
    const status = record?.status ?? 'not_found';
    const colour = COLOURS[status] ?? INK;
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, PROOF_WIDTH, PROOF_HEIGHT);
    ctx.fillStyle = colour;
    ctx.fillRect(0, 0, PROOF_WIDTH, 12);

    const text = (value: string, x: number, y: number, size: number, options: TextOptions = {}) => {
      ctx.font = font(size, options.bold);
      ctx.fillStyle = options.colour ?? INK;
      ctx.textAlign = options.align ?? 'left';
      ctx.fillText(value, x, y);
    };
    // Text of any length is never cut: it is drawn smaller, down to `min`, and wrapped where it still does not fit.
    const fitted = (
      value: string,
      x: number,
      y: number,
      width: number,
      size: number,
      min: number,
      options: TextOptions = {},
    ) => {
      const { size: used, lines } = fit(ctx, value, width, size, min, 1, options.bold);
      const step = used * LINE;
      // Lines that wrap grow up from the baseline, so the block keeps its place.
      lines.forEach((line, k) => text(line, x, y - (lines.length - 1 - k) * step, used, options));
    };
    const rule = (y: number) => {
      ctx.fillStyle = RULE;
      ctx.fillRect(48, y, PROOF_WIDTH - 96, 2);
    };

    // Header: flight, airline, date; the verdict badge on the right.
    const label = status.replace('_', ' ').toUpperCase();
    ctx.font = font(26, true);
    const badge = ctx.measureText(label).width + 48;
    ctx.fillStyle = colour;
    roundRect(ctx, PROOF_WIDTH - 48 - badge, 52, badge, 56, 28);
    text(label, PROOF_WIDTH - 48 - badge / 2, 90, 26, { bold: true, colour: '#ffffff', align: 'center' });
    fitted(record?.flightIata ?? data.flightNumber, 48, 92, PROOF_WIDTH - 96 - badge - 24, 54, 24, { bold: true });
    const airline = record?.airline?.name
      ? `${record.airline.name}${record.flightIcao ? ` · ${record.flightIcao}` : ''}`
      : '';
    fitted(
      `${airline}${airline ? ' · ' : ''}flight date ${data.flightDate}${data.dateBasis === 'local' ? ' (local)' : ''}`,
      48,
      132,
      PROOF_WIDTH - 96,
      24,
      14,
      { colour: MUTED },
    );
    rule(160);

    // Route with airport names, each in its half beside the arrow.
    const half = PROOF_WIDTH / 2 - 48 - 40;
    for (const [iata, x, align] of [
      [record?.originIata ?? data.originIata, 48, 'left'],
      [record?.destinationIata ?? data.destinationIata, PROOF_WIDTH - 48, 'right'],
    ] as const) {
      fitted(iata ?? '???', x, 236, half, 56, 24, { bold: true, align });
      fitted(this.airports.find(iata ?? '')?.name ?? 'unknown airport', x, 280, half, 20, 13, { colour: MUTED, align });
    }
    text('→', PROOF_WIDTH / 2, 232, 48, { colour: MUTED, align: 'center' });
    rule(300);

    // Times, UTC.
    const rows: [string, string | null | undefined, string | null | undefined][] = [
      ['Scheduled', record?.scheduledDeparture, record?.scheduledArrival],
      ['Estimated', record?.estimatedDeparture, record?.estimatedArrival],
      ['Actual', record?.actualDeparture, record?.actualArrival],
    ];
    text('Departure (UTC)', 400, 344, 20, { colour: MUTED });
    text('Arrival (UTC)', 800, 344, 20, { colour: MUTED });
    rows.forEach(([name, departure, arrival], i) => {
      const y = 388 + i * 42;
      text(name, 48, y, 24, { colour: MUTED });
      text(clock(departure), 400, y, 26, { bold: name === 'Actual' });
      text(clock(arrival), 800, y, 26, { bold: name === 'Actual' });
    });
    rule(500);

    // Verdict: the delay, then whole sentences of the rationale, the circumstances and what is owed.
    const verdict = data.flightDelay;
    const headline = !record
      ? 'Flight not found in any provider for this date'
      : record.isCancelled
        ? 'Cancelled: the flight never operated'
        : record.isDiverted
          ? 'Diverted: it never arrived at its destination'
          : record.delayMinutes !== null
            ? `Arrival delay ${verdict?.delayFormatted ?? `${record.delayMinutes}m`}`
            : 'Arrival time not yet known';
    fitted(headline, 48, 552, PROOF_WIDTH - 96, 34, 20, { bold: true, colour });
    const blocks = verdictBlocks(
      ctx,
      PROOF_WIDTH - 96,
      VERDICT_BOTTOM - VERDICT_TOP,
      (verdict?.disruption.rationale ?? data.rationale ?? []).slice(0, 2),
      circumstancesLine(data),
      compensationLine(data),
    );
    let y = VERDICT_TOP;
    for (const block of blocks) {
      for (const line of block.lines) {
        y += block.size * LINE;
        text(line, 48, y, block.size, { bold: block.bold });
      }
    }
    rule(700);

    // Sources and production.
    const sources = (data.sources as { provider: string; outcome: string }[])
      .map((s) => `${s.provider} (${s.outcome})`)
      .join(', ');
    const confidence = verdict ? ` · confidence ${verdict.disruption.confidence}` : '';
    fitted(
      `Sources: ${sources || 'none'}${confidence}${data.meta.cached ? ' · stored record' : ''}`,
      48,
      740,
      PROOF_WIDTH - 96,
      20,
      12,
      { colour: MUTED },
    );
    text(
      `Produced ${new Date(producedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC by Flight Status Service`,
      48,
      774,
      20,
      { colour: MUTED },
    );
  }
}

interface TextOptions {
  bold?: boolean;
  colour?: string;
  align?: Align;
}

/** The verdict's sentences are laid out between the headline and the rule at 700. */
const VERDICT_TOP = 570;
const VERDICT_BOTTOM = 694;

/**
 * `EU261: €400 · UK261: £350 per passenger (unless extraordinary circumstances)`, when anything is
 * owed. A covered diversion owing nothing on the record is one within the destination's city or
 * region whose final arrival the record does not know: it says so rather than "nothing owed".
 */
export function compensationLine(data: Pick<FlightStatusData, 'compensation' | 'selected'>): string | null {
  const c = data.compensation;
  if (!c) return null;
  const parts: string[] = [];
  if (c.eu261.amountEur !== null) parts.push(`EU261: €${c.eu261.amountEur}`);
  if (c.uk261.amountGbp !== null) parts.push(`UK261: £${c.uk261.amountGbp}`);
  if (parts.length === 0 && (c.eu261.applies || c.uk261.applies) && data.selected?.isDiverted) {
    return `EU261 / UK261: owed if passengers reached ${data.selected.destinationIata ?? 'the destination'} 3 hours or more late`;
  }
  if (parts.length === 0)
    return c.eu261.applies || c.uk261.applies ? 'No compensation owed under EU261 / UK261 for this outcome' : null;
  return `${parts.join(' · ')} per passenger (${c.distanceKm.toLocaleString('en')} km), unless extraordinary circumstances`;
}

/** `Circumstances: knock-on from KL1008 LHR–AMS 2019-06-05 · likely extraordinary (Art. 5(3))`. */
export function circumstancesLine(data: Pick<FlightStatusData, 'circumstances'>): string | null {
  const c = data.circumstances;
  if (!c) return null;
  const words = (text: string) => text.replace(/_/g, ' ');
  const leg = c.originLeg;
  const cause = leg
    ? `knock-on from ${leg.flightNumber} ${leg.origin}–${leg.destination} ${leg.flightDate}`
    : words(c.cause);
  return `Circumstances: ${cause} · ${words(c.assessment)} (Art. 5(3))`;
}

function clock(value: string | null | undefined): string {
  return value ? value.slice(0, 16).replace('T', ' ') : '—';
}

function roundRect(ctx: SKRSContext2D, x: number, y: number, w: number, h: number, r: number): void {
  ctx.beginPath();
  ctx.roundRect(x, y, w, h, r);
  ctx.fill();
}
