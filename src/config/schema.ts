// Every capability's settings, in the order the docs list them and the loader reads them. A new
// variable goes into its capability's file; the README table and .env.example are then rewritten
// by `npm run config:docs`, and src/config/docs.test.ts fails until they are.
import { batches } from './batches.js';
import { billing } from './billing.js';
import { seller } from './seller.js';
import { boards } from './boards.js';
import { clock } from './clock.js';
import { dashboard } from './dashboard.js';
import { database } from './database.js';
import { evidence } from './evidence.js';
import { mail } from './mail.js';
import { providers } from './providers.js';
import { server } from './server.js';
import type { Setting } from './setting.js';
import { sim } from './sim.js';
import { weather } from './weather.js';
import { webhooks } from './webhooks.js';
import { watches } from './watches.js';

export const CAPABILITIES = [
  server,
  database,
  dashboard,
  clock,
  providers,
  sim,
  weather,
  boards,
  webhooks,
  batches,
  watches,
  evidence,
  billing,
  seller,
  mail,
] as const;

type AllSettings = (typeof CAPABILITIES)[number]['settings'];
type KeysOfUnion<T> = T extends unknown ? keyof T : never;
export type VariableName = KeysOfUnion<AllSettings> & string;

/** Every variable the service reads, with its setting. */
export const SETTINGS: Readonly<Record<VariableName, Setting>> = Object.assign(
  {},
  ...CAPABILITIES.map((part) => part.settings),
);

/** Every variable the service reads, with its default (mirrored by .env.example, checked by a test). */
export const ENVIRONMENT: Readonly<Record<VariableName, string>> = Object.fromEntries(
  Object.entries(SETTINGS).map(([name, setting]) => [name, setting.default]),
) as Record<VariableName, string>;
