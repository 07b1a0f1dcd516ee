// The plan catalogue the operator keeps (docs/billing.md): id, name, currency, monthly fee, credits
// included per 30-day window, and whether requests past them are served and at what price. Expected
// failures come back as values with a kind (operator API and CLI share this service).
import type { CataloguePlan, PlanLookup, PlanSummary } from '../accounts/index.js';
import type { Result } from '../result.js';
import { MAX_INCLUDED } from '../accounts/index.js';
import { iso, type Clock } from '../clock.js';
import type { Database, PlansTable } from '../db/index.js';
import { nameProblem } from '../names.js';
import { DetailsStore } from './details-store.js';
import { CURRENCIES, formatAmount, formatUnitPrice, parseAmount, parseUnitPrice } from './money.js';

/** Lower-case letters, digits and inner hyphens: an id safe in URLs and on invoices. */
export const PLAN_ID_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])$';
const PLAN_ID = new RegExp(PLAN_ID_PATTERN);

export interface PlanInput {
  id: string;
  name: string;
  currency: string;
  /** Decimal string in the currency, e.g. "49.00". */
  monthlyFee: string;
  included: number;
  overage: boolean;
  /** Decimal string per request past the allowance, e.g. "0.002"; needed with overage, refused without. */
  overagePrice?: string;
  /** Offered to customers on the dashboard (default false). */
  selfService?: boolean;
}

/** A plan's terms (PlanSummary: overagePrice null without overage) and when it was written. */
export interface PlanView extends PlanSummary {
  selfService: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A catalogue plan's terms as invoices price them: the fee in minor units, the overage price in micro-minor units. */
export type CatalogueTerms = CataloguePlan & { name: string; monthlyFeeMinor: number; overagePriceMicroMinor: number };

export class PlansService implements PlanLookup {
  private readonly store: DetailsStore;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.store = new DetailsStore(db);
  }

  async create(input: PlanInput): Promise<Result<PlanView>> {
    const row = this.check(input);
    if ('kind' in row) return row;
    if (!(await this.store.insertPlan(row)))
      return { kind: 'conflict', message: `A plan with id "${input.id}" already exists` };
    return { kind: 'ok', value: view(row) };
  }

  async list(): Promise<PlanView[]> {
    return (await this.store.plans()).map(view);
  }

  /** The plans customers may switch to themselves, in a currency. */
  async selfService(currency: string): Promise<PlanView[]> {
    return (await this.store.plans({ currency })).map(view);
  }

  /** Offers a plan to customers, or stops offering it (its terms never change; accounts on it stay). */
  async setSelfService(id: string, selfService: boolean): Promise<Result<PlanView>> {
    if (!(await this.store.setSelfService(id, selfService, this.clock.now())))
      return { kind: 'not_found', message: `No plan with id ${JSON.stringify(id.slice(0, 60))}` };
    return this.get(id);
  }

  async get(id: string): Promise<Result<PlanView>> {
    const row = await this.store.plan(id);
    return row
      ? { kind: 'ok', value: view(row) }
      : { kind: 'not_found', message: `No plan with id ${JSON.stringify(id.slice(0, 60))}` };
  }

  /** The plan as the account call shows it. */
  async summary(id: string): Promise<PlanSummary | undefined> {
    const found = await this.get(id);
    if (found.kind !== 'ok') return undefined;
    const { createdAt: _c, updatedAt: _u, selfService: _s, ...summary } = found.value;
    return summary;
  }

  /** A plan's terms as the accounts and invoices use them (plans never change once created). */
  async find(id: string): Promise<CatalogueTerms | undefined> {
    const row = await this.store.plan(id);
    if (!row) return undefined;
    return {
      id: row.id,
      name: row.name,
      currency: row.currency,
      included: Number(row.included),
      overage: Number(row.overage) === 1,
      monthlyFeeMinor: Number(row.monthly_fee_minor),
      overagePriceMicroMinor: Number(row.overage_price_micro_minor),
    };
  }

  private check(input: PlanInput): PlansTable | { kind: 'invalid'; message: string } {
    const invalid = (message: string) => ({ kind: 'invalid' as const, message });
    if (!PLAN_ID.test(input.id))
      return invalid('id must be 2 to 40 lower-case letters, digits or inner hyphens, e.g. "starter"');
    const name = input.name.trim();
    const nameIssue = nameProblem('name', name, { min: 1, max: 100 });
    if (nameIssue) return invalid(nameIssue);
    const currency = input.currency.trim().toUpperCase();
    if (!(currency in CURRENCIES)) return invalid(`currency must be one of ${Object.keys(CURRENCIES).join(', ')}`);
    if (!Number.isSafeInteger(input.included) || input.included < 0 || input.included > MAX_INCLUDED)
      return invalid(`included must be an integer from 0 to ${MAX_INCLUDED}`);
    const fee = parseAmount(input.monthlyFee, currency, 'monthlyFee');
    if (!fee.ok) return invalid(fee.message);
    let price = 0;
    if (input.overage) {
      if (input.overagePrice === undefined)
        return invalid('overagePrice is needed when overage is true: the price of one request past the allowance');
      const parsed = parseUnitPrice(input.overagePrice, currency, 'overagePrice');
      if (!parsed.ok) return invalid(parsed.message);
      price = parsed.value;
    } else if (input.overagePrice !== undefined) {
      return invalid(
        'overagePrice is only for plans with overage: true (requests past the allowance are refused otherwise)',
      );
    }
    const now = this.clock.now();
    return {
      id: input.id,
      name,
      currency,
      monthly_fee_minor: fee.value,
      included: input.included,
      overage: input.overage ? 1 : 0,
      overage_price_micro_minor: price,
      self_service: input.selfService ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
  }
}

function view(row: PlansTable): PlanView {
  const overage = Number(row.overage) === 1;
  return {
    id: row.id,
    name: row.name,
    currency: row.currency,
    monthlyFee: formatAmount(Number(row.monthly_fee_minor), row.currency),
    included: Number(row.included),
    overage,
    overagePrice: overage ? formatUnitPrice(Number(row.overage_price_micro_minor), row.currency) : null,
    selfService: Number(row.self_service) === 1,
    createdAt: iso(Number(row.created_at)),
    updatedAt: iso(Number(row.updated_at)),
  };
}

/** Plans looked up once per run (closing a month, issuing fees). */
export class PlanCache {
  private readonly seen = new Map<string, Awaited<ReturnType<PlansService['find']>>>();
  constructor(private readonly plans: PlansService) {}
  async get(id: string) {
    if (!this.seen.has(id)) this.seen.set(id, await this.plans.find(id));
    return this.seen.get(id);
  }
}
