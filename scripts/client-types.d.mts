// Types of client-types.mjs, for the test that compares its output with the committed file (test/client-package.test.ts).
export const CLIENT_TYPES_PATH: string;
export function clientTypes(document: object): Promise<string>;
export function serviceDocument(root: URL): Promise<object>;
