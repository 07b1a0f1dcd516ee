// An owner's invitations of colleagues (docs/dashboard.md, "Your team"): a one-time link for one
// address with a role, a week. They are mail to addresses the tenant chose, so they are bounded:
// INVITE_LIMITS an hour and a day per account (the shared window counters), and open invitations
// hold a place in the team (MAX_MEMBERS counts people and open invitations alike), checked and
// written while the account's row is held, so invitations sent at once cannot pass the limit. The
// Team page lists the open ones by their public id (`invite_…`, never the token's hash) and revokes
// them; a revoked link stops working at once.
import { randomBytes } from 'node:crypto';
import { hashKey } from '../auth/index.js';
import type { AccountsService } from '../accounts/index.js';
import { DAY, iso, type Clock } from '../clock.js';
import { takeHourAndDay, type HourAndDay } from '../db/rate-limits.js';
import type { Database } from '../db/index.js';
import { newId } from '../ids.js';
import type { UsersRepository } from './repository.js';
import type { Role, UsersResult } from './credentials.js';

/** Colleagues per account (owners included) and invitations still open: a team, not a directory. */
export const MAX_MEMBERS = 50;
export const INVITE_MS = 7 * DAY;
/**
 * Invitations an account may send: 20 an hour (a team is invited in one sitting) and 50 a day (a
 * whole team of MAX_MEMBERS in a day), so that an account cannot be made a relay of mail to
 * addresses it chose (docs/decisions.md, "Invitations").
 */
export const INVITE_LIMITS: HourAndDay = { perHour: 20, perDay: 50 };
const BUCKET = 'invite:';

export interface Invited {
  token: string;
  ref: string;
  email: string;
  role: Role;
  expiresAt: number;
}

export interface PendingInvitation {
  ref: string;
  /** null: the operator's link, for any address. */
  email: string | null;
  role: Role;
  /** The inviting owner's email; null: the operator. */
  invitedBy: string | null;
  createdAt: number;
  expiresAt: number;
}

export class Invitations {
  constructor(
    private readonly o: {
      db: Database;
      clock: Clock;
      accounts: AccountsService;
      repository: UsersRepository;
      limits?: HourAndDay;
    },
  ) {}

  /**
   * A colleague's invitation (`email` and `role` checked by the caller). Refused when the team and
   * its open invitations are full, when one to this address is open already, and past the account's
   * allowance of the hour or day (nothing is spent on the first two).
   */
  async create(
    accountId: string,
    input: { email: string; role: Role; invitedBy: string },
  ): Promise<UsersResult<Invited>> {
    const now = this.o.clock.now();
    // Checked before a unit is taken, and again below while the account's row is held.
    const early = this.refusal(
      await this.o.repository.members(accountId),
      await this.o.repository.openInvites(accountId, now),
      input.email,
    );
    if (early) return early;
    const throttled = await takeHourAndDay(this.o.db, `${BUCKET}${accountId}`, this.o.limits ?? INVITE_LIMITS, now);
    if (throttled)
      return {
        kind: 'throttled',
        field: 'form',
        message: throttleMessage(throttled, this.o.limits ?? INVITE_LIMITS, now),
        retryAfterSeconds: throttled.retryAfterSeconds,
      };
    const token = randomBytes(32).toString('base64url');
    const ref = newId('invite');
    return this.o.db.kysely.transaction().execute(async (trx): Promise<UsersResult<Invited>> => {
      if (!(await this.o.accounts.hold(trx, accountId)))
        return { kind: 'invalid', field: 'form', message: 'This account no longer exists' };
      const refused = this.refusal(
        await this.o.repository.members(accountId, trx),
        await this.o.repository.openInvites(accountId, now, trx),
        input.email,
      );
      if (refused) return refused;
      const row = {
        id: hashKey(token),
        ref,
        account_id: accountId,
        created_at: now,
        expires_at: now + INVITE_MS,
        role: input.role,
        email: input.email,
        invited_by: input.invitedBy,
      };
      await this.o.repository.insertInvite(row, trx);
      return { kind: 'ok', value: { token, ref, email: input.email, role: input.role, expiresAt: row.expires_at } };
    });
  }

  /** The operator's one-time link (an owner, any address): `flightstatus accounts invite`. */
  async createForOperator(accountId: string): Promise<{ token: string; expiresAt: number }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.o.clock.now();
    await this.o.repository.insertInvite({
      id: hashKey(token),
      ref: newId('invite'),
      account_id: accountId,
      created_at: now,
      expires_at: now + INVITE_MS,
    });
    return { token, expiresAt: now + INVITE_MS };
  }

  /** The account's open invitations, oldest first. */
  async pending(accountId: string): Promise<PendingInvitation[]> {
    return (await this.o.repository.openInvites(accountId, this.o.clock.now()))
      .filter((i): i is typeof i & { ref: string } => typeof i.ref === 'string')
      .map((i) => ({
        ref: i.ref,
        email: i.email ?? null,
        role: i.role ?? 'owner',
        invitedBy: i.invited_by ?? null,
        createdAt: Number(i.created_at),
        expiresAt: Number(i.expires_at),
      }));
  }

  /** Ends one of the account's open invitations at once (its link answers as an expired one); false when it has none by that id. */
  revoke(accountId: string, ref: string): Promise<boolean> {
    if (!/^invite_[0-9A-Za-z]{20}$/.test(ref)) return Promise.resolve(false);
    return this.o.repository.revokeInvite(accountId, ref);
  }

  private refusal(
    members: { email: string }[],
    open: { email?: string | null }[],
    email: string,
  ): UsersResult<never> | null {
    if (open.some((i) => i.email === email))
      return {
        kind: 'conflict',
        field: 'email',
        message: `An invitation to ${email} is open already: revoke it below to send a new one`,
      };
    if (members.length + open.length >= MAX_MEMBERS) {
      return {
        kind: 'invalid',
        field: 'form',
        message: `An account has at most ${MAX_MEMBERS} people, open invitations included: revoke an invitation or remove someone first`,
      };
    }
    return null;
  }
}

function throttleMessage(
  refused: { window: 'hour' | 'day'; retryAfterSeconds: number },
  limits: HourAndDay,
  now: number,
): string {
  if (refused.window === 'hour') {
    return `This account has sent ${limits.perHour} invitations this hour, the most an hour allows: try again in ${Math.ceil(refused.retryAfterSeconds / 60)} minutes`;
  }
  const at = iso(now + refused.retryAfterSeconds * 1000)
    .slice(0, 16)
    .replace('T', ' ');
  return `This account has sent ${limits.perDay} invitations today, the most a day allows: try again after ${at} UTC`;
}
