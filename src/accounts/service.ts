// Accounts, plans and keys: what the operator API and the `flightstatus` CLI manage. Expected
// failures (unknown account, slug taken, a plan missing) come back as values with a kind.
import type { Failure, Result } from '../result.js';
import type { CompiledQuery } from 'kysely';
import type { Clock } from '../clock.js';
import { iso } from '../clock.js';
import type { BillingStatus, Database, Flag } from '../db/index.js';
import { atomically } from '../db/atomic.js';
import { newId } from '../ids.js';
import { nameProblem } from '../names.js';
import { generateKeyMaterial } from '../auth/index.js';
import type { MeteringService } from '../metering/index.js';
import { positionOf, windowAt } from '../metering/index.js';
import { AccountsRepository, type AccountRow, type KeyRow } from './repository.js';

export interface Plan {
  included: number;
  overage: boolean;
}

/** What the accounts need of a catalogue plan (billing's PlansService provides it). */
export interface CataloguePlan {
  id: string;
  currency: string;
  included: number;
  overage: boolean;
}

export interface PlanLookup {
  find(id: string): Promise<CataloguePlan | undefined>;
}

export interface AccountView {
  id: string;
  slug: string;
  name: string;
  unlimited: boolean;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
  subscription: {
    status: BillingStatus;
    /** The allowance of the current window. */
    plan: Plan | null;
    /** The catalogue plan of the current window; null on a custom allowance or none. */
    planId: string | null;
    /** A plan change waiting for the next window (docs/billing.md). */
    pendingPlan: { planId: string; included: number; overage: boolean; from: string } | null;
    /** Start of the first window; windows roll every 30 days from here. */
    windowAnchor: string;
  };
  /** Where the payment gateway charges this account (null until the operator sets them). */
  billing: { gatewayCustomer: string | null; paymentMethod: string | null };
  /** Null on unlimited accounts, like the account call's `credits`. */
  credits: { included: number; used: number; remaining: number; overage: number; periodStart: string; periodEnd: string } | null;
  /** Lifetime count of metered requests. */
  requestCount: number;
  keys: KeyView[];
}

export interface KeyView {
  keyId: string;
  name: string;
  keyPrefix: string;
  disabled: boolean;
  createdAt: string;
}

export interface CreatedKey extends KeyView {
  accountId: string;
  /** The plaintext key, returned this once and never again. */
  key: string;
}


/** A plan as given: overage defaults to off. */
export interface PlanInput {
  included: number;
  overage?: boolean;
}

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
   * from the next window, the current one keeps its plan to its end.
   */
  planId?: string;
  subscriptionStatus?: BillingStatus;
  /** The customer and saved payment method at the payment gateway ('' clears). */
  gatewayCustomer?: string;
  paymentMethod?: string;
}

/** Lower-case letters, digits and inner hyphens, 2–64 characters: safe in URLs, shells and logs. */
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])$';
const SLUG = new RegExp(SLUG_PATTERN);
/** Plan allowances above this are certainly typos (a billion requests per window). */
export const MAX_INCLUDED = 1_000_000_000;

export class AccountsService {
  private readonly repository: AccountsRepository;

  constructor(
    private readonly db: Database,
    private readonly metering: MeteringService,
    private readonly clock: Clock,
    private readonly plans: PlanLookup,
  ) {
    this.repository = new AccountsRepository(db);
  }

  /**
   * `alongside` gives statements that belong with the new account (the dashboard's first user): they
   * and the account are written as one unit, all or nothing.
   */
  async createAccount(input: CreateAccountInput, alongside?: (accountId: string) => CompiledQuery[]): Promise<Result<AccountView>> {
    if (!SLUG.test(input.slug)) {
      return invalid('slug must be 2 to 64 lower-case letters, digits or inner hyphens, e.g. "acme-claims"');
    }
    const planProblem = input.plan ? checkPlan(input.plan) : null;
    if (planProblem) return invalid(planProblem);
    if (input.plan && input.planId !== undefined) return invalid('give plan (a custom allowance) or planId (a catalogue plan), not both');
    const name = input.name?.trim() || input.slug;
    const nameIssue = nameProblem('name', name);
    if (nameIssue) return invalid(nameIssue);
    const catalogue = input.planId === undefined ? undefined : await this.plans.find(input.planId);
    if (input.planId !== undefined && !catalogue) return invalid(`planId: no plan with id ${JSON.stringify(input.planId.slice(0, 60))} in the catalogue`);
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
    return { kind: 'ok', value: await this.view(account, keys) };
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

  async updateAccount(idOrSlug: string, patch: UpdateAccountInput): Promise<Result<AccountView>> {
    const account = await this.repository.findAccount(idOrSlug);
    if (!account) return notFound(idOrSlug);
    if (patch.plan) {
      const problem = checkPlan(patch.plan);
      if (problem) return invalid(problem);
    }
    if (patch.plan && patch.planId !== undefined) return invalid('give plan (a custom allowance) or planId (a catalogue plan), not both');
    for (const [name, value] of [['gatewayCustomer', patch.gatewayCustomer], ['paymentMethod', patch.paymentMethod]] as const) {
      if (value !== undefined && value !== '' && !GATEWAY_ID.test(value)) return invalid(`${name} must be the gateway's id, e.g. "cus_…" or "pm_…" (letters, digits and underscores, up to 255)`);
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
      const change = await this.planChange(account, patch.planId, now);
      if ('kind' in change) return change;
      Object.assign(changes, change);
    }
    const hasPlan = (patch.plan ?? changes.plan_included ?? account.plan_included) !== null;
    // Giving a plan to an account that never had one starts its subscription; an explicit status wins.
    const status = patch.subscriptionStatus ?? ((patch.plan || patch.planId !== undefined) && account.plan_included === null ? 'active' : undefined);
    if (status !== undefined) {
      if (status === 'active' && !hasPlan) {
        return invalid('subscriptionStatus "active" needs a plan: send plan {included, overage} as well');
      }
      changes.billing_status = status;
      // The first subscription an account ever gets starts its first window now; a resumed one (after
      // canceled, past_due or none) keeps rolling from its anchor and gets no fresh allowance.
      if (status === 'active' && account.plan_included === null) changes.window_anchor = now;
    }
    await this.repository.updateAccount(account.id, changes);
    return this.describe(account.id);
  }

  /**
   * The columns that subscribe `account` to catalogue plan `planId`. An account without a running
   * subscription starts on it at once; otherwise the current window keeps its plan to its end and
   * the new one applies from the next window (asking for the current plan again cancels a pending
   * change). One currency per account: its invoices never mix currencies.
   */
  private async planChange(account: AccountRow, planId: string, now: number): Promise<Partial<AccountRow> | Failure> {
    const plan = await this.plans.find(planId);
    if (!plan) return invalid(`planId: no plan with id ${JSON.stringify(planId.slice(0, 60))} in the catalogue`);
    const current = effectivePlan(account, windowAt(account.window_anchor, now).start);
    const running = current.included !== null && (account.billing_status === 'active' || account.billing_status === 'past_due');
    if (!running) {
      return { plan_id: plan.id, plan_included: plan.included, plan_overage: flag(plan.overage), ...NO_PENDING_PLAN };
    }
    if (current.planId !== null) {
      const was = await this.plans.find(current.planId);
      if (was && was.currency !== plan.currency) {
        return invalid(`planId: plan ${plan.id} is priced in ${plan.currency} but this account's plan ${was.id} is in ${was.currency}; an account keeps one currency`);
      }
    }
    // Whatever was pending and is already in effect becomes the current plan first.
    const settled: Partial<AccountRow> = { plan_id: current.planId, plan_included: current.included, plan_overage: flag(current.overage) };
    if (current.planId === plan.id) return { ...settled, ...NO_PENDING_PLAN };
    return {
      ...settled,
      next_plan_id: plan.id,
      next_plan_included: plan.included,
      next_plan_overage: flag(plan.overage),
      next_plan_from: windowAt(account.window_anchor, now).end,
    };
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
  async setKeyDisabled(keyId: string, disabled: boolean, accountId?: string): Promise<Result<KeyView & { accountId: string }>> {
    const row = await this.repository.updateKey(keyId, { disabled: flag(disabled), updated_at: this.clock.now() }, accountId);
    if (!row) return { kind: 'not_found', message: `No key with id "${keyId}"` };
    return { kind: 'ok', value: { ...keyView(row), accountId: row.account_id } };
  }

  /** Deletes one of the account's keys: requests with it are refused from now on (401); its usage stays. */
  async deleteKey(accountId: string, keyId: string): Promise<Result<{ keyId: string; deleted: true }>> {
    if (!(await this.repository.deleteKey(keyId, accountId))) return { kind: 'not_found', message: `No key with id "${keyId}"` };
    return { kind: 'ok', value: { keyId, deleted: true } };
  }

  private async view(account: AccountRow, keys: KeyRow[]): Promise<AccountView> {
    const now = this.clock.now();
    const window = windowAt(account.window_anchor, now);
    const plan = effectivePlan(account, window.start);
    const pending = account.next_plan_id !== null && account.next_plan_from !== null && account.next_plan_from > window.start;
    let credits: AccountView['credits'] = null;
    if (account.unlimited === 0) {
      const used = await this.metering.usedInWindow(account.id, window.start);
      const position = positionOf({ included: plan.included ?? 0, overage: plan.overage }, used, window);
      credits = {
        included: position.included ?? 0,
        used: position.used,
        remaining: position.remaining ?? 0,
        overage: position.overage,
        periodStart: iso(window.start),
        periodEnd: iso(window.end),
      };
    }
    return {
      id: account.id,
      slug: account.slug,
      name: account.name,
      unlimited: account.unlimited === 1,
      disabled: account.disabled === 1,
      createdAt: iso(account.created_at),
      updatedAt: iso(account.updated_at),
      subscription: {
        status: account.billing_status,
        plan: plan.included === null ? null : { included: plan.included, overage: plan.overage },
        planId: plan.planId,
        pendingPlan: pending
          ? { planId: account.next_plan_id!, included: account.next_plan_included ?? 0, overage: account.next_plan_overage === 1, from: iso(account.next_plan_from!) }
          : null,
        windowAnchor: iso(account.window_anchor),
      },
      billing: { gatewayCustomer: account.gateway_customer, paymentMethod: account.payment_method },
      credits,
      requestCount: await this.metering.requestCount(account.id),
      keys: keys.map(keyView),
    };
  }
}

function keyView(row: KeyRow): KeyView {
  return { keyId: row.id, name: row.name, keyPrefix: row.prefix, disabled: row.disabled === 1, createdAt: iso(row.created_at) };
}

/** The plan of the window starting at `windowStart`: a pending change applies from its window on (as the admission decides). */
export function effectivePlan(account: AccountRow, windowStart: number): { planId: string | null; included: number | null; overage: boolean } {
  if (account.next_plan_id !== null && account.next_plan_from !== null && windowStart >= account.next_plan_from) {
    return { planId: account.next_plan_id, included: account.next_plan_included ?? 0, overage: account.next_plan_overage === 1 };
  }
  return { planId: account.plan_id, included: account.plan_included, overage: account.plan_overage === 1 };
}

const NO_PENDING_PLAN = { next_plan_id: null, next_plan_from: null, next_plan_included: null, next_plan_overage: null } as const;
/** Stripe's ids (cus_…, pm_…) and other gateways' alike. */
const GATEWAY_ID = /^[A-Za-z0-9_]{1,255}$/;

function checkPlan(plan: PlanInput): string | null {
  if (!Number.isSafeInteger(plan.included) || plan.included < 0 || plan.included > MAX_INCLUDED) {
    return `plan.included must be an integer from 0 to ${MAX_INCLUDED}`;
  }
  return null;
}

const flag = (value: boolean): Flag => (value ? 1 : 0);
const invalid = (message: string): Failure => ({ kind: 'invalid', message });
const notFound = (idOrSlug: string): Failure => ({ kind: 'not_found', message: `No account with id or slug "${idOrSlug}"` });
