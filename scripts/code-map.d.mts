// Types of code-map.mjs, for the test that runs it (test/code-map.test.ts).
export const MAP_START: string;
export const MAP_END: string;
export function headerOf(text: string): string;
export function firstSentence(header: string): string;
export function describeSource(src: string): { entries: [string, string][]; missing: string[] };
export function renderCodeMap(src: string): string;
export function replaceCodeMap(readme: string, map: string): string;
