// Schema errors (Ajv) turned into one sentence that names each offending field, e.g.
// "body.plan.included must be an integer; body has an unknown field \"colour\"".

interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** Present because Ajv runs with `verbose`: the schema that failed, for its description. */
  parentSchema?: { description?: string };
}

export function formatSchemaErrors(errors: readonly SchemaError[], dataVar: string): string {
  const root = dataVar === 'querystring' ? 'query' : dataVar;
  const parts = new Set<string>();
  for (const error of errors) parts.add(describe(error, root));
  return [...parts].join('; ');
}

function describe(error: SchemaError, root: string): string {
  const path = [root, ...error.instancePath.split('/').filter(Boolean).map(unescapePointer)].join('.');
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return `${path}.${String(p.missingProperty)} is required`;
    case 'additionalProperties':
      return `${path} has an unknown field "${String(p.additionalProperty)}"`;
    case 'type':
      return `${path} must be ${article(String(p.type))}`;
    case 'minLength':
      return `${path} must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `${path} must be at most ${String(p.limit)} characters`;
    case 'minimum':
      return `${path} must be at least ${String(p.limit)}`;
    case 'maximum':
      return `${path} must be at most ${String(p.limit)}`;
    case 'pattern':
      return `${path} has an invalid format${error.parentSchema?.description ? ` (${error.parentSchema.description})` : ''}`;
    case 'enum':
      return `${path} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'minProperties':
      return `${path} must set at least ${String(p.limit)} field${p.limit === 1 ? '' : 's'}`;
    default:
      return `${path} ${error.message ?? 'is invalid'}`;
  }
}

function article(type: string): string {
  const words: Record<string, string> = {
    integer: 'an integer',
    object: 'a JSON object',
    array: 'an array',
    boolean: 'a boolean (true or false)',
    string: 'a string',
    number: 'a number',
    null: 'null',
  };
  return type
    .split(',')
    .map((t) => words[t] ?? t)
    .join(' or ');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * A preValidation hook that reads the named query parameters as integers when they are written as
 * one (digits, an optional minus). The schema can then declare them `integer` with their range, as a
 * typed client sends them, and Ajv (which does not coerce) names the problem: "query.limit must be at
 * least 1", or "must be an integer" for anything else.
 */
export function integerQuery(...names: string[]) {
  return async (request: { query: unknown }) => {
    const query = request.query as Record<string, unknown> | null;
    if (!query) return;
    for (const name of names) {
      const value = query[name];
      if (typeof value === 'string' && /^-?[0-9]{1,15}$/.test(value)) query[name] = Number(value);
    }
  };
}
