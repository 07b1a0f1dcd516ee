// Dashboard sessions: a random token handed out once at sign-in, stored as its SHA-256 and good for
// SESSION_MS, and the signed-in user it stands for.
import { randomBytes } from 'node:crypto';
import { hashKey } from '../auth/index.js';
import { DAY, type Clock } from '../clock.js';
import type { Role } from './credentials.js';
import type { UserRow, UsersRepository } from './repository.js';

/** A session lasts this long from sign-in; signing in again starts a new one. */
export const SESSION_MS = 7 * DAY;

export interface SignedInUser {
  id: string;
  email: string;
  accountId: string;
  role: Role;
}

export class Sessions {
  constructor(
    private readonly repository: UsersRepository,
    private readonly clock: Clock,
  ) {}

  /** A new session for the user: its token, which leaves here once. */
  async start(userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.repository.insertSession({
      id: hashKey(token),
      user_id: userId,
      created_at: now,
      expires_at: now + SESSION_MS,
    });
    return token;
  }

  async user(token: string): Promise<SignedInUser | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const user = await this.repository.sessionUser(hashKey(token), this.clock.now());
    return user ? signedIn(user) : null;
  }

  async end(token: string): Promise<void> {
    await this.repository.deleteSession(hashKey(token));
  }
}

export const signedIn = (row: UserRow): SignedInUser => ({
  id: row.id,
  email: row.email,
  accountId: row.account_id,
  role: row.role,
});
