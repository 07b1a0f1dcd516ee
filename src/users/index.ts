// Dashboard users, their sessions and invitations, and account recovery (docs/dashboard.md).
export { UsersService, MAX_MEMBERS } from './service.js';
export { SESSION_MS, type SignedInUser } from './sessions.js';
export {
  PASSWORD_MIN,
  ROLES,
  emailProblem,
  normaliseEmail,
  passwordProblem,
  type Role,
  type Field,
} from './credentials.js';
export { EMAIL_FAILURES } from './throttles.js';
export { RESET_LIMITS, RESET_MS, VERIFY_MS, type IssuedLink } from './recovery.js';
export { INVITE_LIMITS, INVITE_MS, type Invited, type PendingInvitation } from './invitations.js';
