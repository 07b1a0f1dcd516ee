// PostgreSQL admission: a key lookup followed by a (grouped) credit statement, and a metered request
// whose key was looked up before skips the lookup: the credit statement itself checks that the key's
// and the account's rows are the versions the verdict was made from.
import type { IncomingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';
import {
  hashedCredential,
  judge,
  judgePrincipal,
  versionOf,
  type KeyLookup,
  type Principal,
  type PrincipalVersion,
} from '../auth/index.js';
import type { Clock } from '../clock.js';
import {
  admitJudged,
  conclude,
  creditStep,
  type Admission,
  type Admitted,
  type Gate,
  type UsageDraft,
} from './gate.js';
import { STALE } from './group-commit.js';
import { StaleAdmissionError, STALE_ATTEMPTS, type PostgresMeteringStore } from './store-postgres.js';

/** Principals kept for metered requests (each entry is a verdict and the row versions it was made from). */
const PRINCIPAL_CACHE_SIZE = 10_000;
/** Only bounds how long an unused entry takes memory: correctness comes from the check, not from time. */
const PRINCIPAL_CACHE_TTL_MS = 10 * 60_000;

/**
 * PostgreSQL: the key lookup, then the credit statement (grouped by the store). A metered request
 * admits a key found before without looking it up again: its credit statement checks that neither
 * the key's nor the account's row changed since (PrincipalVersion) and takes nothing when one did,
 * and the request is then judged from a fresh lookup. So a key disabled, an account switched off or
 * moved to past due on any process is refused by the next credit statement that starts after that
 * change committed, exactly as without the cache. Only admitted principals are kept; every other
 * verdict, and every request that takes no credit, is looked up fresh.
 */
export class PostgresGate implements Gate {
  private readonly principals = new LRUCache<string, { outcome: Admitted; version: PrincipalVersion }>({
    max: PRINCIPAL_CACHE_SIZE,
    ttl: PRINCIPAL_CACHE_TTL_MS,
  });

  constructor(
    private readonly keys: KeyLookup,
    private readonly store: PostgresMeteringStore,
    private readonly clock: Clock,
  ) {}

  async admit(headers: IncomingHttpHeaders, usage: UsageDraft | null): Promise<Admission> {
    const credential = hashedCredential(headers);
    if (credential.kind !== 'hash') return { kind: 'unauthenticated', reason: credential.kind };
    const { hash } = credential;
    const now = this.clock.now();
    if (!usage) return admitJudged(this.store, judge(await this.keys.findByHash(hash), hash), null, now);
    for (let attempt = 0; attempt < STALE_ATTEMPTS; attempt++) {
      let known = this.principals.get(hash);
      if (!known) {
        const row = await this.keys.findByHash(hash);
        const outcome = judge(row, hash);
        const version = row && versionOf(row);
        if (outcome.kind !== 'ok' || !version) return admitJudged(this.store, outcome, usage, now);
        known = { outcome, version };
        this.principals.set(hash, known);
      }
      const step = creditStep(known.outcome.principal, usage, now);
      const answer = await this.store.takeCheckedCredit(step.ask, step.usage, known.version);
      if (answer !== STALE) return conclude(known.outcome, step, answer);
      this.principals.delete(hash);
    }
    throw new StaleAdmissionError();
  }

  admitPrincipal(principal: Principal, usage: UsageDraft): Promise<Admission> {
    return admitJudged(this.store, judgePrincipal(principal), usage, this.clock.now());
  }
}
