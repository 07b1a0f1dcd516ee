// Who is calling: the key presented and the account behind it, as read at authorisation.
import type { BillingStatus } from '../db/schema.js';

export interface Principal {
  keyId: string;
  keyName: string;
  keyPrefix: string;
  keyDisabled: boolean;
  account: {
    id: string;
    slug: string;
    disabled: boolean;
    /** Internal accounts: never billed, never refused for credit. */
    unlimited: boolean;
    billingStatus: BillingStatus;
    planIncluded: number | null;
    planOverage: boolean;
    /** The catalogue plan in effect; null on a custom allowance. */
    planId: string | null;
    /** A plan change that applies from the window starting at `from` (docs/billing.md). */
    nextPlan: { id: string; included: number; overage: boolean; from: number } | null;
    windowAnchor: number;
  };
}

/** One row of the key lookup, as both dialects return it. */
export interface PrincipalRow {
  key_id: string;
  key_name: string;
  key_prefix: string;
  key_hash: string;
  key_disabled: number;
  account_id: string;
  account_slug: string;
  account_disabled: number;
  unlimited: number;
  billing_status: BillingStatus;
  plan_included: number | null;
  plan_overage: number;
  plan_id: string | null;
  next_plan_id: string | null;
  next_plan_from: number | null;
  next_included: number | null;
  next_overage: number | null;
  window_anchor: number;
  /** PostgreSQL only: the key's and the account's row versions as read (see PrincipalVersion). */
  key_version?: string;
  account_version?: string;
}

/**
 * The row versions (PostgreSQL's xmin) of a key and its account as a lookup read them. Any update of
 * either row changes its version, so a credit statement that finds both unchanged knows the verdict
 * made from them still holds (metering/gate-postgres.ts keeps looked-up principals on that condition).
 */
export interface PrincipalVersion {
  keyId: string;
  key: string;
  account: string;
}

/** The versions a PostgreSQL lookup read, or null (SQLite reads none). */
export function versionOf(row: PrincipalRow): PrincipalVersion | null {
  return row.key_version === undefined || row.account_version === undefined
    ? null
    : { keyId: row.key_id, key: row.key_version, account: row.account_version };
}

export const PRINCIPAL_COLUMNS = `
         k.id AS key_id, k.name AS key_name, k.prefix AS key_prefix, k.hash AS key_hash,
         k.disabled AS key_disabled, a.id AS account_id, a.slug AS account_slug,
         a.disabled AS account_disabled, a.unlimited, a.billing_status, a.plan_included,
         a.plan_overage, a.plan_id, a.next_plan_id, a.next_plan_from, a.next_plan_included AS next_included,
         a.next_plan_overage AS next_overage, a.window_anchor`;
export const PRINCIPAL_FROM = 'FROM api_keys k JOIN accounts a ON a.id = k.account_id';

export function toPrincipal(row: PrincipalRow): Principal {
  return {
    keyId: row.key_id,
    keyName: row.key_name,
    keyPrefix: row.key_prefix,
    keyDisabled: row.key_disabled === 1,
    account: {
      id: row.account_id,
      slug: row.account_slug,
      disabled: row.account_disabled === 1,
      unlimited: row.unlimited === 1,
      billingStatus: row.billing_status,
      planIncluded: row.plan_included,
      planOverage: row.plan_overage === 1,
      planId: row.plan_id,
      nextPlan:
        row.next_plan_id === null || row.next_plan_from === null || row.next_included === null
          ? null
          : {
              id: row.next_plan_id,
              included: Number(row.next_included),
              overage: Number(row.next_overage) === 1,
              from: Number(row.next_plan_from),
            },
      windowAnchor: Number(row.window_anchor),
    },
  };
}

/**
 * Finds a key's principal by the key's hash. It runs on every authenticated request, so it is a
 * statement prepared once per process (run inside the SQLite group transaction:
 * repository-sqlite.ts) or a named prepared statement on PostgreSQL, shared by the lookups of one
 * turn of the event loop (repository-postgres.ts); not a Kysely query.
 */
export interface KeyLookup {
  findByHash(hash: string): Promise<PrincipalRow | undefined>;
}
