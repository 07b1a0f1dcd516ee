// Dashboard users, their sessions and invitations, and account recovery (docs/dashboard.md).
export { UsersService, SESSION_MS, EMAIL_FAILURES, PASSWORD_MIN, MAX_MEMBERS, ROLES, emailProblem, normaliseEmail, passwordProblem, type Role, type SignedInUser, type Field } from './service.js';
export { RESET_LIMITS, RESET_MS, VERIFY_MS, type IssuedLink } from './recovery.js';
export { INVITE_LIMITS, INVITE_MS, type Invited, type PendingInvitation } from './invitations.js';
