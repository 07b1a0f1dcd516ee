// SQLite admission: the whole decision (key lookup, verdict, credit or credit read) is a single item
// of the group transaction (db/sqlite-group.ts), its statements run synchronously inside it.
import type { IncomingHttpHeaders } from 'node:http';
import { hashedCredential, judge, judgePrincipal, type Principal, type SqliteKeyLookup } from '../auth/index.js';
import type { Clock } from '../clock.js';
import type { SqliteGroup } from '../db/index.js';
import { admitJudged, conclude, stepFor, type Admission, type Gate, type UsageDraft } from './gate.js';
import type { SqliteMeteringStore } from './store-sqlite.js';

/** SQLite: the whole admission is one item of the group transaction. */
export class SqliteGate implements Gate {
  constructor(
    private readonly group: SqliteGroup,
    private readonly keys: SqliteKeyLookup,
    private readonly store: SqliteMeteringStore,
    private readonly clock: Clock,
  ) {}

  admit(headers: IncomingHttpHeaders, usage: UsageDraft | null): Promise<Admission> {
    const credential = hashedCredential(headers);
    if (credential.kind !== 'hash') return Promise.resolve({ kind: 'unauthenticated', reason: credential.kind });
    const now = this.clock.now();
    return this.group.run(() => {
      const outcome = judge(this.keys.findByHashNow(credential.hash), credential.hash);
      const step = stepFor(outcome, usage, now);
      const answer =
        step.need === 'credit'
          ? this.store.takeCreditNow(step.ask, step.usage)
          : step.need === 'used'
            ? this.store.readUsedNow(step.accountId, step.window.start)
            : null;
      return conclude(outcome, step, answer);
    });
  }

  admitPrincipal(principal: Principal, usage: UsageDraft): Promise<Admission> {
    return admitJudged(this.store, judgePrincipal(principal), usage, this.clock.now());
  }
}
