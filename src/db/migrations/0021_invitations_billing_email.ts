// Mail nobody can abuse (docs/mail.md).
// - invites.ref: the invitation's public id (`invite_…`), for the Team page to list and revoke it;
//   the id stays the SHA-256 of the token in the link, which the page must never show. Open
//   invitations made before get one here. Unique.
// - invites.invited_by: the email of the owner who invited (null: the operator's, or made before).
// - account_billing.email_confirmed_at: when the billing email was confirmed (its confirmation link
//   opened, or set by the operator); null: not confirmed, and billing mail goes to the owner. A
//   billing email set before this migration counts as confirmed (docs/decisions.md).
// - billing_email_confirmations: the one-time links that confirm a billing email (a week, used once):
//   `id` is the SHA-256 of the token in the link, `email` the address it confirms (a link sent for
//   an address the account changed since confirms nothing).
import type { Kysely } from 'kysely';
import { newId } from '../../ids.js';
import type { DialectMigration } from '../migrate.js';

export const invitationsBillingEmail: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('invites').addColumn('ref', 'text').execute();
    await db.schema.alterTable('invites').addColumn('invited_by', 'text').execute();
    const open = (await db.selectFrom('invites').select('id').where('used_at', 'is', null).execute()) as {
      id: string;
    }[];
    for (const { id } of open)
      await db
        .updateTable('invites')
        .set({ ref: newId('invite') })
        .where('id', '=', id)
        .execute();
    await db.schema.createIndex('invites_ref').on('invites').column('ref').unique().execute();
    await db.schema.createIndex('invites_account').on('invites').columns(['account_id', 'expires_at']).execute();

    await db.schema.alterTable('account_billing').addColumn('email_confirmed_at', 'bigint').execute();
    await db
      .updateTable('account_billing')
      .set((eb) => ({ email_confirmed_at: eb.ref('updated_at') }))
      .where('email', 'is not', null)
      .execute();
    await db.schema
      .createTable('billing_email_confirmations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('billing_email_confirmations_account')
      .on('billing_email_confirmations')
      .column('account_id')
      .execute();
  },
});
