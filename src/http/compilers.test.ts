// The compilers kept for the process: the same schema text compiles once, whoever asks; another
// schema, other shared schemas or other options compile anew, and what is compiled still works.
import { describe, expect, it } from 'vitest';
import { compilersFactory } from './compilers.js';

const answer = () => ({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });

describe('compilersFactory', () => {
  it('gives every server the serializer already compiled for the same schema text', () => {
    const first = compilersFactory.buildSerializer({}, {});
    const second = compilersFactory.buildSerializer({}, {});
    const serialize = first({ schema: answer(), method: 'GET', url: '/a', httpStatus: '200' });
    expect(second({ schema: answer(), method: 'GET', url: '/b', httpStatus: '200' })).toBe(serialize);
    expect(serialize({ n: 1, secret: 'x' })).toBe('{"n":1}');
    const other = second({
      schema: { ...answer(), properties: { m: { type: 'integer' } } },
      method: 'GET',
      url: '/a',
      httpStatus: '200',
    });
    expect(other).not.toBe(serialize);
    expect(
      compilersFactory.buildSerializer(
        { shared: { $id: 'shared', type: 'string' } },
        {},
      )({ schema: answer(), method: 'GET', url: '/a', httpStatus: '200' }),
    ).not.toBe(serialize);
  });

  it('gives every server the validator already compiled for the same schema text and options', () => {
    const options = { customOptions: { coerceTypes: false, allErrors: true } };
    const validate = compilersFactory.buildValidator(
      {},
      options,
    )({ schema: answer(), method: 'POST', url: '/a', httpPart: 'body' });
    expect(
      compilersFactory.buildValidator(
        {},
        { customOptions: { coerceTypes: false, allErrors: true } },
      )({ schema: answer(), method: 'POST', url: '/b', httpPart: 'body' }),
    ).toBe(validate);
    expect(validate({ n: 1 })).toBe(true);
    expect(validate({ n: '1' })).toBe(false);
    const coercing = compilersFactory.buildValidator(
      {},
      { customOptions: { coerceTypes: true, allErrors: true } },
    )({ schema: answer(), method: 'POST', url: '/a', httpPart: 'body' });
    expect(coercing).not.toBe(validate);
    expect(coercing({ n: '1' })).toBe(true);
  });
});
