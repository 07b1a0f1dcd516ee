// The compilers that turn route schemas into request validators (Ajv) and response serializers
// (fast-json-stringify): Fastify's own, kept for the process instead of for one server.
//
// Fastify makes a new Ajv and compiles every route's schemas afresh for each server it builds. A
// process that builds one server pays that once (about a third of a second on a 2-core machine);
// the test suite builds about 2,000, and spent two thirds of each build's CPU there (0.6 s of 0.9 s:
// fast-json-stringify 0.34 s, Ajv's set-up and compiling 0.17 s). A compiled validator or serializer
// is a pure function of the schema's JSON, the shared schemas and the options, so it is kept under
// exactly that text and reused by every server of the process that asks for the same.
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each package types its own factory
type Factory = (externalSchemas: any, options: any) => (route: any) => unknown;

/**
 * Wraps a compiler factory so that each compiled function is kept under the text of what it was
 * compiled from: the shared schemas and options of its server (numbered once per distinct text,
 * so keys stay short) and the route's schema.
 */
function keptByText<F extends Factory>(factory: F): F {
  const contexts = new Map<string, number>();
  const compiled = new Map<string, unknown>();
  const kept = (externalSchemas: unknown, options: unknown) => {
    const text = JSON.stringify([externalSchemas, options]);
    let context = contexts.get(text);
    if (context === undefined) contexts.set(text, (context = contexts.size));
    const compile = factory(externalSchemas, options);
    return (route: { schema?: unknown }) => {
      const key = `${context}:${JSON.stringify(route.schema)}`;
      let fn = compiled.get(key);
      if (fn === undefined) compiled.set(key, (fn = compile(route)));
      return fn;
    };
  };
  return kept as F;
}

/** Fastify's `schemaController.compilersFactory`: its default compilers, kept for the process. */
export const compilersFactory = {
  // One Ajv per set of shared schemas and options (the package pools them by that text already).
  buildValidator: keptByText(AjvCompiler()),
  buildSerializer: keptByText(SerializerSelector()),
};
