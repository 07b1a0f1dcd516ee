// Mail nobody can abuse (issue 42, item 2).
// - invites.ref: the invitation's public id (`invite_…`), for the Team page to list and revoke it;
//   the id stays the SHA-256 of the token in the link, which the page must never show. Open
//   invitations made before get one here. Unique.
// - invites.invited_by: the email of the owner who invited (null: the operator's, or made before).
import type { Kysely } from 'kysely';
import { newId } from '../../ids.js';
import type { DialectMigration } from '../migrate.js';

export const invitationsBillingEmail: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('invites').addColumn('ref', 'text').execute();
    await db.schema.alterTable('invites').addColumn('invited_by', 'text').execute();
    const open = (await db.selectFrom('invites').select('id').where('used_at', 'is', null).execute()) as { id: string }[];
    for (const { id } of open) await db.updateTable('invites').set({ ref: newId('invite') }).where('id', '=', id).execute();
    await db.schema.createIndex('invites_ref').on('invites').column('ref').unique().execute();
    await db.schema.createIndex('invites_account').on('invites').columns(['account_id', 'expires_at']).execute();
  },
});
