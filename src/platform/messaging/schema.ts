import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Messages the embedded sender "sent": with no email/SMS provider configured, outgoing guest
 * messages are recorded here (and logged) so an operator can see exactly what would have gone out.
 */
export const outboundMessages = sqliteTable(
  'outbound_messages',
  {
    id: text('id').primaryKey(),
    channel: text('channel', { enum: ['email', 'sms'] }).notNull(),
    destination: text('destination').notNull(),
    subject: text('subject'),
    body: text('body').notNull(),
    /** Which part of the service sent it, e.g. `gift_card_delivery`. */
    category: text('category').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (table) => [index('outbound_messages_created').on(table.createdAt)],
)

export type OutboundMessageRow = typeof outboundMessages.$inferSelect
