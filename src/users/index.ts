// Dashboard users, their sessions and invitations (docs/dashboard.md).
export { UsersService, SESSION_MS, INVITE_MS, EMAIL_FAILURES, ADDRESS_FAILURES, PASSWORD_MIN, type SignedInUser, type UsersFailure, type UsersResult, type Field } from './service.js';
export { hashPassword, verifyPassword, PASSWORD_COST } from './passwords.js';
