import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const noteTypes = ['Note', 'Email', 'Phone Call', 'Meeting', 'Task'] as const

export const notes = sqliteTable(
  'notes',
  {
    id: text('id').primaryKey(),
    type: text('type', { enum: noteTypes }).notNull(),
    content: text('content').notNull(),
    /** The date the note is about (YYYY-MM-DD), which may differ from when it was written. */
    noteDate: text('note_date').notNull(),
    /**
     * Checked against the tenant when written (notes/service.ts). No foreign key (adding one would
     * rebuild the table): customer merges move notes and customer deletion counts them instead
     * (notes/hooks.ts).
     */
    customerId: text('customer_id'),
    orderId: text('order_id'),
    clubMembershipId: text('club_membership_id'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('notes_customer').on(table.customerId),
    index('notes_order').on(table.orderId),
    index('notes_club_membership').on(table.clubMembershipId),
    index('notes_date').on(table.noteDate),
  ],
)

export type NoteRow = typeof notes.$inferSelect
