// The outcome of a service operation that can fail in an expected way: the value, or a failure of
// one of three kinds, each with a message for the person who asked. Services answer with it and never
// throw for these; the HTTP edge maps the kinds to status codes once (src/http/results.ts), the CLI
// to exit codes (src/cli/output.ts).
export type Failure =
  { kind: 'not_found'; message: string } | { kind: 'conflict'; message: string } | { kind: 'invalid'; message: string };

export type Result<T> = { kind: 'ok'; value: T } | Failure;
