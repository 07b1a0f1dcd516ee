// The simulated world: its seed, and the faults it injects for tests of timeouts and retries.
import { Type, type TSchema } from 'typebox';
import { capability, custom, invalid, type Invalid, type Setting } from './setting.js';

/** A provider's questions, by name (providers/types.ts): the simulated world's latency and failures are set per kind. */
export const CALL_KINDS = ['flight', 'board', 'aircraft', 'rotation'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

export interface SimConfig {
  seed: string;
  /** Artificial latency per call kind, a uniform range in milliseconds. */
  latency: Partial<Record<CallKind, { min: number; max: number }>>;
  /** Share of calls per kind that fail with a provider error. */
  failures: Partial<Record<CallKind, number>>;
}

/** `flight=200,board=50-150`: a value per provider call kind; `expected` says what a value is. */
function perKind<T>(
  value: TSchema,
  expected: string,
  parse: (text: string) => T | null,
  doc: string,
  comment?: string,
): Setting<Partial<Record<CallKind, T>>> {
  return custom({
    default: '',
    schema: Type.Partial(Type.Object(Object.fromEntries(CALL_KINDS.map((kind) => [kind, value])))),
    parse: (text, name): Partial<Record<CallKind, T>> | Invalid => {
      const out: Partial<Record<CallKind, T>> = {};
      const problems: string[] = [];
      if (text === '') return out;
      for (const item of text.split(',')) {
        const [kind, given] = item.split('=').map((p) => p.trim());
        if (!(CALL_KINDS as readonly string[]).includes(kind ?? '')) {
          problems.push(`${name}: "${kind}" is not a call kind (use ${CALL_KINDS.join(', ')}, e.g. flight=200)`);
          continue;
        }
        const parsed = given === undefined ? null : parse(given);
        if (parsed === null) problems.push(`${name}: ${kind} needs ${expected} (got "${given ?? ''}")`);
        else out[kind as CallKind] = parsed;
      }
      return problems.length > 0 ? invalid(...problems) : out;
    },
    doc,
    ...(comment === undefined ? {} : { comment }),
  });
}

export const sim = capability({
  title: 'The simulated world',
  settings: {
    FLIGHTSTATUS_SIM_SEED: custom({
      default: 'flightstatus',
      schema: Type.String({ maxLength: 200 }),
      parse: (text) => (text.length > 200 ? invalid('FLIGHTSTATUS_SIM_SEED must be at most 200 characters') : text),
      doc: 'the simulated world is deterministic from this seed',
      comment:
        'The simulated world is deterministic from this seed: the same seed, airport, day and moment give the ' +
        'same answer on any machine.',
    }),
    FLIGHTSTATUS_SIM_LATENCY: perKind(
      Type.Object({ min: Type.Integer({ minimum: 0 }), max: Type.Integer({ minimum: 0 }) }),
      'milliseconds or a range such as 50-200',
      (value) => {
        const match = /^(\d{1,6})(?:-(\d{1,6}))?$/.exec(value);
        if (!match) return null;
        const min = Number(match[1]);
        const max = Number(match[2] ?? match[1]);
        return max >= min ? { min, max } : null;
      },
      'latency injected per call kind, in milliseconds or a range, e.g. `flight=200,board=50-150`; empty: none',
      'Fault injection for tests of timeouts and retries, per call kind (flight, board, aircraft, rotation); off when ' +
        'empty. Latency in milliseconds or a range (flight=200,board=50-150); failures as a share of calls ' +
        'answered with a provider error (flight=0.5).',
    ),
    FLIGHTSTATUS_SIM_FAILURES: perKind(
      Type.Number({ minimum: 0, maximum: 1 }),
      'a share from 0 to 1',
      (value) => (/^(0(\.\d+)?|1(\.0+)?)$/.test(value) ? Number(value) : null),
      'share of calls per call kind answered with a provider error, e.g. `flight=0.5`; empty: none',
    ),
  },
  build: (v): { sim: SimConfig } => ({
    sim: { seed: v.FLIGHTSTATUS_SIM_SEED, latency: v.FLIGHTSTATUS_SIM_LATENCY, failures: v.FLIGHTSTATUS_SIM_FAILURES },
  }),
});
