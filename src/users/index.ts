// Dashboard users, their sessions and invitations (docs/dashboard.md).
export { UsersService, SESSION_MS, EMAIL_FAILURES, PASSWORD_MIN, type SignedInUser, type Field } from './service.js';
