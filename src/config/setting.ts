// The vocabulary of the configuration schema: one `Setting` per environment variable, declaring its
// default text, what its value is (a TypeBox schema: the type, the range and the choices that the
// messages quote), how its text is read, and the words the README table and .env.example show.
// Each capability file (server.ts, database.ts, …) declares its settings with these helpers, plus
// the rules that span several of its variables; load.ts reads them all, docs.ts writes the docs.
// The checks are plain comparisons against the same bounds and words, not TypeBox's Value.Check:
// importing typebox/value costs every CLI start 0.4 to 1 s on a loaded machine (measured), for
// two comparisons ('typebox' itself is loaded by the routes anyway).
import { Type, type Static, type TInteger, type TSchema } from 'typebox';

/** What a text that does not fit says: one line per problem, naming the variable and what to fix. */
export interface Invalid {
  invalid: string[];
}

export interface Setting<T = unknown> {
  /** The text used when the variable is unset or blank (values are trimmed). */
  readonly default: string;
  /** The value's JSON Schema: its type, and the bounds and choices the messages quote. */
  readonly schema: TSchema;
  /** Text (trimmed, default applied) → value, or what is wrong with it. */
  readonly parse: (text: string, name: string) => T | Invalid;
  /** The README table's "Meaning" cell (markdown, one line). */
  readonly doc: string;
  /** The .env.example paragraph above the variable; `\n` breaks a line, lines are wrapped at 100. */
  readonly comment?: string;
}

export type Settings = Record<string, Setting>;

/** The parsed value of every variable of a capability: types derived from its settings. */
export type Values<S extends Settings> = { [K in keyof S]: S[K] extends Setting<infer T> ? T : never };

/** Cross-variable rules see what parsed (a variable that did not is absent) and the texts as given. */
export interface Reading<S extends Settings> {
  values: Partial<Values<S>>;
  text: { [K in keyof S]: string };
  problem(text: string): void;
  warning(text: string): void;
}

/**
 * A capability's part of the configuration: its variables, the rules between them (`check`, run
 * whatever else failed, so every problem is named at once) and the assembly of its slice of
 * Config (`build`, run only when nothing anywhere failed).
 */
export interface Capability<S extends Settings, R> {
  /** The README and .env.example heading of the capability's variables. */
  readonly title: string;
  readonly settings: S;
  readonly check?: (reading: Reading<S>) => void;
  readonly build: (values: Values<S>) => R;
}

export function capability<S extends Settings, R>(definition: Capability<S, R>): Capability<S, R> {
  return definition;
}

export function isInvalid(value: unknown): value is Invalid {
  return typeof value === 'object' && value !== null && 'invalid' in value && Array.isArray((value as Invalid).invalid);
}

export function invalid(...lines: string[]): Invalid {
  return { invalid: lines };
}

type Doc = Pick<Setting, 'doc' | 'comment'>;

/** A setting from its words, its default, its value's schema and its reading. */
function setting<T>(options: Doc & { default: string }, schema: TSchema, parse: Setting<T>['parse']): Setting<T> {
  return {
    default: options.default,
    schema,
    parse,
    doc: options.doc,
    ...(options.comment === undefined ? {} : { comment: options.comment }),
  };
}

/** The text a message echoes: as given, or its first `clip` characters. */
function echo(text: string, clip: number | undefined): string {
  return clip === undefined ? text : text.slice(0, clip);
}

/**
 * A whole number in the schema's range; `unit` is how the message names it ("an integer",
 * "minutes"), `clip` shortens the echoed text, `hint` follows the message after a semicolon.
 */
export function integer(
  options: Doc & { default: string; min: number; max: number; unit: string; clip?: number; hint?: string },
): Setting<Static<TInteger>> {
  const bounds = { minimum: options.min, maximum: options.max };
  const schema = Type.Integer(bounds);
  return setting(options, schema, (text, name) => {
    // Digits only: Number() would also take "1e3", "0x10", "+5" and " 5".
    const value = /^\d+$/.test(text) ? Number(text) : null;
    if (value !== null && Number.isSafeInteger(value) && value >= bounds.minimum && value <= bounds.maximum)
      return value;
    const hint = options.hint === undefined ? '' : `; ${options.hint}`;
    return invalid(
      `${name} must be ${options.unit} from ${bounds.minimum} to ${bounds.maximum} (got "${echo(text, options.clip)}")${hint}`,
    );
  });
}

/**
 * One of a closed set of words. The message lists them as "one of a, b, c" or as "a, b or c";
 * `lowerCase` reads the text case-insensitively (the echo keeps the text as given).
 */
export function oneOf<const W extends readonly string[]>(
  words: W,
  options: Doc & { default: W[number]; listing: 'one of' | 'or'; lowerCase?: boolean; clip?: number },
): Setting<W[number]> {
  const schema = Type.Union(words.map((word) => Type.Literal(word)));
  const listed =
    options.listing === 'one of' ? `one of ${words.join(', ')}` : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
  return setting(options, schema, (text, name) => {
    const word = options.lowerCase ? text.toLowerCase() : text;
    return (words as readonly string[]).includes(word)
      ? (word as W[number])
      : invalid(`${name} must be ${listed} (got "${echo(text, options.clip)}")`);
  });
}

/** 0 or 1. */
export function flag(options: Doc & { default: '0' | '1' }): Setting<boolean> {
  return setting(options, Type.Boolean(), (text, name) =>
    text === '0' || text === '1' ? text === '1' : invalid(`${name} must be 0 or 1 (got "${text}")`),
  );
}

/** Any text (its rules, if any, are the capability's `check`). */
export function text(options: Doc & { default: string }): Setting<string> {
  return setting(options, Type.String(), (value) => value);
}

/** A setting with its own reading: `schema` says what the value is, `parse` how the text becomes it. */
export function custom<T>(
  options: Doc & { default: string; schema: TSchema; parse: (text: string, name: string) => T | Invalid },
): Setting<T> {
  return options;
}

/**
 * Reads a capability's variables from the environment: blank is the default, every problem is
 * collected (not just the first), and the rules between variables run on what parsed.
 */
export function read<S extends Settings, R>(
  part: Capability<S, R>,
  env: NodeJS.ProcessEnv,
  problems: string[],
  warnings: string[],
): Values<S> | null {
  const values: Record<string, unknown> = {};
  const texts: Record<string, string> = {};
  let failed = false;
  for (const [name, setting] of Object.entries(part.settings)) {
    const given = env[name];
    const textValue = given === undefined || given.trim() === '' ? setting.default : given.trim();
    texts[name] = textValue;
    const value = setting.parse(textValue, name);
    if (isInvalid(value)) {
      problems.push(...value.invalid);
      failed = true;
    } else {
      values[name] = value;
    }
  }
  const before = problems.length;
  part.check?.({
    values: values as Partial<Values<S>>,
    text: texts as { [K in keyof S]: string },
    problem: (line) => problems.push(line),
    warning: (line) => warnings.push(line),
  });
  return failed || problems.length > before ? null : (values as Values<S>);
}
