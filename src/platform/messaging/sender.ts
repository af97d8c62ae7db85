// The pluggable sender of guest messages (emails and text messages). Gift card delivery uses it
// today; off-premise guest notifications will use the same one.
//
// - `embeddedSender` (the default): records each message in the tenant's `outbound_messages`
//   table and logs it. Nothing leaves the machine.
// - `smtpSender(url)`: sends email through the SMTP server of `SMTP_URL` (nodemailer). It has no
//   way to send SMS, so SMS messages fail with a reason the caller records.
// `createMessageSender(config)` picks one from the configuration.
import type { Transporter } from 'nodemailer'
import type { Config } from '../../config'
import { newId, nowIso } from '../foundation/ids'
import type { Logger } from '../foundation/log'
import type { Queryable } from '../tenancy/transaction'
import { outboundMessages } from './schema'

export type MessageChannel = 'email' | 'sms'

export interface OutgoingMessage {
  channel: MessageChannel
  /** An email address or a phone number. */
  to: string
  subject?: string
  text: string
  category: string
}

export interface SentMessage {
  provider: string
  messageId: string
}

/** Thrown by a sender when a message could not be sent; `message` is the reason to record. */
export class MessageSendError extends Error {
  constructor(
    readonly provider: string,
    reason: string,
  ) {
    super(reason)
    this.name = 'MessageSendError'
  }
}

export interface MessageSender {
  /** The provider name recorded with each attempt (`embedded`, `smtp`...). */
  readonly provider: string
  /** Sends one message on behalf of a tenant; throws MessageSendError when it cannot. */
  send(db: Queryable, message: OutgoingMessage): Promise<SentMessage>
}

export function embeddedSender(log?: Logger): MessageSender {
  return {
    provider: 'embedded',
    async send(db, message) {
      const row = db
        .insert(outboundMessages)
        .values({
          id: newId(),
          channel: message.channel,
          destination: message.to,
          subject: message.subject ?? null,
          body: message.text,
          category: message.category,
          createdAt: nowIso(),
        })
        .returning()
        .get()
      log?.info('message recorded by the embedded sender', {
        messageId: row.id,
        channel: row.channel,
        to: row.destination,
        category: row.category,
      })
      return { provider: 'embedded', messageId: row.id }
    },
  }
}

export function smtpSender(url: string, from: string): MessageSender {
  // nodemailer (and node:http with it) loads with the first email: loaded with the server, it
  // was a tenth of start-up, for a sender most installations never use.
  let transport: Promise<Transporter> | undefined
  const transportOnce = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url)))
  return {
    provider: 'smtp',
    async send(_db, message) {
      if (message.channel !== 'email') {
        throw new MessageSendError('smtp', `the smtp provider cannot send ${message.channel} messages`)
      }
      try {
        const info = await (await transportOnce()).sendMail({
          from,
          to: message.to,
          subject: message.subject ?? '',
          text: message.text,
        })
        return { provider: 'smtp', messageId: info.messageId }
      } catch (error) {
        throw new MessageSendError('smtp', error instanceof Error ? error.message : String(error))
      }
    },
  }
}

export function createMessageSender(
  config: Pick<Config, 'smtpUrl' | 'smtpFrom'>,
  log?: Logger,
): MessageSender {
  return config.smtpUrl ? smtpSender(config.smtpUrl, config.smtpFrom) : embeddedSender(log)
}
