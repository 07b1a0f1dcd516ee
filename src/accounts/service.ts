// Accounts and their keys: what the operator API and the `flightstatus` CLI manage. Plans and their
// rules are in plans.ts, what readers see of an account in view.ts. Expected failures (unknown
// account, slug taken, a plan missing) come back as values with a kind.
import type { Failure, Result } from '../result.js';
import type { CompiledQuery } from 'kysely';
import type { Clock } from '../clock.js';
import type { BillingStatus, Database } from '../db/index.js';
import { atomically } from '../db/atomic.js';
import { newId } from '../ids.js';
import { nameProblem } from '../names.js';
import { generateKeyMaterial } from '../auth/index.js';
import { windowAt, type MeteringService } from '../metering/index.js';
import {
  checkPlan,
  NO_PENDING_PLAN,
  planChange,
  upgradeColumns,
  type CataloguePlan,
  type PlanInput,
  type PlanLookup,
} from './plans.js';
import { AccountsRepository, flag, type AccountRow, type KeyRow } from './repository.js';
import { accountsDialect, type AccountsDialect, type Tx } from './dialect.js';
import { accountView, keyView, type AccountView, type CreatedKey, type KeyView } from './view.js';

export interface CreateAccountInput {
  slug: string;
  name?: string;
  unlimited?: boolean;
  /** A custom allowance (not priced). */
  plan?: PlanInput;
  /** A plan of the catalogue (priced); instead of `plan`. */
  planId?: string;
}

export interface UpdateAccountInput {
  disabled?: boolean;
  unlimited?: boolean;
  /** A custom allowance: applies at once and replaces any catalogue plan (and a pending change). */
  plan?: PlanInput;
  /**
   * A plan of the catalogue: the first one applies at once (a new window starts); a change applies
   * from the next window, the current one keeps its plan to its end. (An upgrade at once is
   * billing's: it bills the proration with the change, through upgradeQuery.)
   */
  planId?: string;
  subscriptionStatus?: BillingStatus;
  /** The customer and saved payment method at the payment gateway ('' clears). */
  gatewayCustomer?: string;
  paymentMethod?: string;
  /**
   * true: the subscription ends with the current window (the customer keeps what it paid for; no
   * fee for the next); false: it goes on. Choosing a plan, or an explicit status, withdraws it.
   */
  cancelAtWindowEnd?: boolean;
}

/** Lower-case letters, digits and inner hyphens, 2–64 characters: safe in URLs, shells and logs. */
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])$';
const SLUG = new RegExp(SLUG_PATTERN);

export class AccountsService {
  private readonly repository: AccountsRepository;
  private readonly dialect: AccountsDialect;

  constructor(
    private readonly db: Database,
    private readonly metering: MeteringService,
    private readonly clock: Clock,
    private readonly plans: PlanLookup,
  ) {
    this.repository = new AccountsRepository(db);
    this.dialect = accountsDialect(db);
  }

  /**
   * Holds the account's row in `trx` until it ends: another transaction holding it waits, so a
   * caller that reads, checks and writes what hangs on the account (users' removals and
   * invitations) sees what the one before it left. False when there is no such account.
   */
  async hold(trx: Tx, accountId: string): Promise<boolean> {
    return (await this.dialect.accountForUpdate(trx, accountId)) !== undefined;
  }

  /**
   * `alongside` gives statements that belong with the new account (the dashboard's first user): they
   * and the account are written as one unit, all or nothing.
   */
  async createAccount(
    input: CreateAccountInput,
    alongside?: (accountId: string) => CompiledQuery[],
  ): Promise<Result<AccountView>> {
    if (!SLUG.test(input.slug)) {
      return invalid('slug must be 2 to 64 lower-case letters, digits or inner hyphens, e.g. "acme-claims"');
    }
    const planProblem = input.plan ? checkPlan(input.plan) : null;
    if (planProblem) return invalid(planProblem);
    if (input.plan && input.planId !== undefined)
      return invalid('give plan (a custom allowance) or planId (a catalogue plan), not both');
    const name = input.name?.trim() || input.slug;
    const nameIssue = nameProblem('name', name);
    if (nameIssue) return invalid(nameIssue);
    const catalogue = input.planId === undefined ? undefined : await this.plans.find(input.planId);
    if (input.planId !== undefined && !catalogue)
      return invalid(`planId: no plan with id ${JSON.stringify(input.planId.slice(0, 60))} in the catalogue`);
    const plan = catalogue ?? input.plan;

    const now = this.clock.now();
    const row: AccountRow = {
      id: newId('acct'),
      slug: input.slug,
      name,
      unlimited: flag(input.unlimited ?? false),
      disabled: 0,
      // An account with a plan gets an active subscription whose first window starts now.
      billing_status: plan ? 'active' : 'none',
      plan_included: plan?.included ?? null,
      plan_overage: flag(plan?.overage ?? false),
      window_anchor: now,
      created_at: now,
      updated_at: now,
      plan_id: catalogue?.id ?? null,
      ...NO_PENDING_PLAN,
      gateway_customer: null,
      payment_method: null,
      cancel_at: null,
    };
    const conflict: Failure = { kind: 'conflict', message: `An account with slug "${input.slug}" already exists` };
    if (alongside) {
      try {
        await atomically(this.db, [this.repository.insertAccountQuery(row), ...alongside(row.id)]);
      } catch (error) {
        if (await this.repository.findAccount(input.slug)) return conflict;
        throw error;
      }
    } else if (!(await this.repository.insertAccount(row))) {
      return conflict;
    }
    return this.describe(row.id);
  }

  async describe(idOrSlug: string): Promise<Result<AccountView>> {
    const account = await this.repository.findAccount(idOrSlug);
    if (!account) return notFound(idOrSlug);
    const keys = await this.repository.keysOf(account.id);
    return { kind: 'ok', value: await accountView(account, keys, this.metering, this.clock.now()) };
  }

  async listAccounts(): Promise<AccountRow[]> {
    return this.repository.listAccounts();
  }

  /** The stored row (billing reads plans, anchors and gateway ids from it). */
  async find(idOrSlug: string): Promise<AccountRow | undefined> {
    return this.repository.findAccount(idOrSlug);
  }

  /**
   * The statement that moves the subscription from `from` to `to` (and only from it), for a caller
   * to run in its own unit with the record of why (billing's dunning and payments).
   */
  billingStatusQuery(accountId: string, from: BillingStatus, to: BillingStatus, at: number): CompiledQuery {
    return this.repository.billingStatusQuery(accountId, from, to, at);
  }

  /** The statement that reads these accounts' names (billing runs it in the transaction that opens their invoices). */
  namesQuery(ids: string[]): CompiledQuery<{ id: string; name: string }> {
    return this.repository.namesQuery(ids);
  }

  /**
   * The statement that moves `read` (the row as the caller read it) to catalogue plan `plan` at once,
   * changing nothing when the row changed since (billing runs it in the transaction that bills the
   * upgrade; docs/billing.md, "Upgrade now").
   */
  upgradeQuery(read: AccountRow, plan: CataloguePlan, at: number): CompiledQuery {
    return this.repository.upgradeQuery(read, upgradeColumns(plan, at));
  }

  /** Accounts whose cancellation at the end of a window is due at `at`, with their state. */
  dueCancellations(at: number): Promise<{ id: string; billing_status: BillingStatus }[]> {
    return this.repository.dueCancellations(at);
  }

  /** The statement that ends a due cancellation: `from` → canceled (billing runs it in its transaction). */
  cancellationQuery(accountId: string, from: BillingStatus, at: number): CompiledQuery {
    return this.repository.cancellationQuery(accountId, from, at);
  }

  async updateAccount(idOrSlug: string, patch: UpdateAccountInput): Promise<Result<AccountView>> {
    const account = await this.repository.findAccount(idOrSlug);
    if (!account) return notFound(idOrSlug);
    if (patch.plan) {
      const problem = checkPlan(patch.plan);
      if (problem) return invalid(problem);
    }
    if (patch.plan && patch.planId !== undefined)
      return invalid('give plan (a custom allowance) or planId (a catalogue plan), not both');
    for (const [name, value] of [
      ['gatewayCustomer', patch.gatewayCustomer],
      ['paymentMethod', patch.paymentMethod],
    ] as const) {
      if (value !== undefined && value !== '' && !GATEWAY_ID.test(value))
        return invalid(
          `${name} must be the gateway's id, e.g. "cus_…" or "pm_…" (letters, digits and underscores, up to 255)`,
        );
    }

    const now = this.clock.now();
    const changes: Partial<AccountRow> = { updated_at: now };
    if (patch.disabled !== undefined) changes.disabled = flag(patch.disabled);
    if (patch.unlimited !== undefined) changes.unlimited = flag(patch.unlimited);
    if (patch.gatewayCustomer !== undefined) changes.gateway_customer = patch.gatewayCustomer || null;
    if (patch.paymentMethod !== undefined) changes.payment_method = patch.paymentMethod || null;
    if (patch.plan) {
      changes.plan_included = patch.plan.included;
      // Changing the allowance alone keeps the overage setting (a customer must not start getting 429s).
      changes.plan_overage = patch.plan.overage === undefined ? account.plan_overage : flag(patch.plan.overage);
      Object.assign(changes, { plan_id: null, ...NO_PENDING_PLAN });
    }
    if (patch.planId !== undefined) {
      const change = await planChange(this.plans, account, patch.planId, now);
      if ('kind' in change) return change;
      Object.assign(changes, change, { cancel_at: null });
    }
    if (patch.cancelAtWindowEnd !== undefined) {
      if (patch.planId !== undefined || patch.subscriptionStatus !== undefined)
        return invalid('cancelAtWindowEnd cannot be given with planId or subscriptionStatus');
      const running =
        (account.billing_status === 'active' || account.billing_status === 'past_due') &&
        account.plan_included !== null &&
        account.unlimited === 0;
      if (patch.cancelAtWindowEnd && !running)
        return {
          kind: 'conflict',
          message: `The subscription is ${account.billing_status}: only a running one can be canceled at the end of its window`,
        };
      // A pending plan change gives way: there is no next window to change.
      Object.assign(
        changes,
        patch.cancelAtWindowEnd
          ? { cancel_at: windowAt(account.window_anchor, now).end, ...NO_PENDING_PLAN }
          : { cancel_at: null },
      );
    }
    const hasPlan = (patch.plan ?? changes.plan_included ?? account.plan_included) !== null;
    // Giving a plan to an account that never had one starts its subscription; an explicit status wins.
    const status =
      patch.subscriptionStatus ??
      ((patch.plan || patch.planId !== undefined) && account.plan_included === null ? 'active' : undefined);
    if (status !== undefined) {
      if (status === 'active' && !hasPlan) {
        return invalid('subscriptionStatus "active" needs a plan: send plan {included, overage} as well');
      }
      changes.billing_status = status;
      changes.cancel_at = null;
      // The first subscription an account ever gets starts its first window now; a resumed one (after
      // canceled, past_due or none) keeps rolling from its anchor and gets no fresh allowance.
      if (status === 'active' && account.plan_included === null) changes.window_anchor = now;
    }
    await this.repository.updateAccount(account.id, changes);
    return this.describe(account.id);
  }

  async createKey(idOrSlug: string, name: string): Promise<Result<CreatedKey>> {
    const trimmed = name.trim();
    const nameIssue = nameProblem('name', trimmed, { min: 1, max: 100 });
    if (nameIssue) return invalid(nameIssue);
    const account = await this.repository.findAccount(idOrSlug);
    if (!account) return notFound(idOrSlug);
    const material = generateKeyMaterial();
    const now = this.clock.now();
    const row: KeyRow = {
      id: newId('key'),
      account_id: account.id,
      name: trimmed,
      prefix: material.prefix,
      hash: material.hash,
      disabled: 0,
      created_at: now,
      updated_at: now,
    };
    await this.repository.insertKey(row);
    return { kind: 'ok', value: { ...keyView(row), accountId: account.id, key: material.plaintext } };
  }

  /** `accountId` (the dashboard's) limits the change to that account's keys: another's is not found. */
  async setKeyDisabled(
    keyId: string,
    disabled: boolean,
    accountId?: string,
  ): Promise<Result<KeyView & { accountId: string }>> {
    const row = await this.repository.updateKey(
      keyId,
      { disabled: flag(disabled), updated_at: this.clock.now() },
      accountId,
    );
    if (!row) return { kind: 'not_found', message: `No key with id "${keyId}"` };
    return { kind: 'ok', value: { ...keyView(row), accountId: row.account_id } };
  }

  /** Deletes one of the account's keys: requests with it are refused from now on (401); its usage stays. */
  async deleteKey(accountId: string, keyId: string): Promise<Result<{ keyId: string; deleted: true }>> {
    if (!(await this.repository.deleteKey(keyId, accountId)))
      return { kind: 'not_found', message: `No key with id "${keyId}"` };
    return { kind: 'ok', value: { keyId, deleted: true } };
  }
}

/** Stripe's ids (cus_…, pm_…) and other gateways' alike. */
const GATEWAY_ID = /^[A-Za-z0-9_]{1,255}$/;

const invalid = (message: string): Failure => ({ kind: 'invalid', message });
const notFound = (idOrSlug: string): Failure => ({
  kind: 'not_found',
  message: `No account with id or slug "${idOrSlug}"`,
});
