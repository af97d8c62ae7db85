// The pluggable message sender: the embedded default records messages; the SMTP sender delivers
// email to a real SMTP server (smtp-server, in process) and fails SMS with a recorded reason.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { SMTPServer } from 'smtp-server'
import { ConfigError, loadConfig } from '../../src/config'
import { deliverDueGiftCards } from '../../src/modules/gift-cards/delivery'
import { systemActor } from '../../src/platform/foundation/actor'
import { createMessageSender, MessageSendError } from '../../src/platform/messaging/sender'
import { createTestApp, type TestApp } from '../harness'
import { issueCard } from '../modules/gift-cards/helpers'

const received: { from: string; to: string[]; data: string }[] = []
let server: SMTPServer
let port: number

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let data = ''
      stream.on('data', (chunk: Buffer) => {
        data += chunk.toString()
      })
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
        })
        if (session.envelope.rcptTo.some((r) => r.address.startsWith('bounce@'))) {
          const error = new Error('mailbox full') as Error & { responseCode: number }
          error.responseCode = 552
          return callback(error)
        }
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  port = (server.server.address() as { port: number }).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
  received.length = 0
})
afterEach(() => t.close())

describe('configuration', () => {
  test('SMTP_URL must be an smtp:// or smtps:// URL; unset picks the embedded sender', () => {
    expect(loadConfig({}).smtpUrl).toBeUndefined()
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.test:465' }).smtpUrl).toBe(
      'smtps://u:p@mail.example.test:465',
    )
    expect(() => loadConfig({ SMTP_URL: 'https://mail.example.test' })).toThrow(ConfigError)
    expect(() => loadConfig({ SMTP_URL: 'not a url' })).toThrow(/SMTP_URL/)
    expect(createMessageSender(loadConfig({})).provider).toBe('embedded')
    expect(createMessageSender(loadConfig({ SMTP_URL: 'smtp://localhost:25' })).provider).toBe('smtp')
  })
})

describe('smtp sender', () => {
  test('delivers a gift card email to the SMTP server', async () => {
    const sender = createMessageSender({ smtpUrl: `smtp://127.0.0.1:${port}`, smtpFrom: 'gifts@acme.test' })
    const card = await issueCard(t, 3000, {
      body: { recipientEmail: 'rosa@example.test', deliveryChannel: 'email' },
    })
    const run = await deliverDueGiftCards(
      t.tenant.db,
      sender,
      new Date(),
      systemActor(t.tenant.id, 'gift-card-delivery'),
    )
    expect(run).toEqual({ attempted: 1, sent: 1, failed: 0 })
    expect(received).toHaveLength(1)
    expect(received[0]!.from).toBe('gifts@acme.test')
    expect(received[0]!.to).toEqual(['rosa@example.test'])
    expect(received[0]!.data).toContain(card.code)
    const row = t.tenant.db.$client
      .query('SELECT provider, provider_message_id FROM gift_card_deliveries')
      .get() as {
      provider: string
      provider_message_id: string
    }
    expect(row.provider).toBe('smtp')
    expect(row.provider_message_id).toMatch(/^<.+>$/)
    // The embedded outbox is not used when SMTP is configured.
    expect(
      (t.tenant.db.$client.query('SELECT count(*) AS n FROM outbound_messages').get() as { n: number }).n,
    ).toBe(0)
  })

  test('a refused recipient, an SMS and an unreachable server are failures with reasons', async () => {
    const sender = createMessageSender({ smtpUrl: `smtp://127.0.0.1:${port}`, smtpFrom: 'gifts@acme.test' })
    await issueCard(t, 1000, {
      body: { deliveryChannel: 'email', deliveryDestination: 'bounce@example.test' },
    })
    await issueCard(t, 1000, { body: { deliveryChannel: 'sms', deliveryDestination: '+15550100' } })
    const run = await deliverDueGiftCards(
      t.tenant.db,
      sender,
      new Date(),
      systemActor(t.tenant.id, 'gift-card-delivery'),
    )
    expect(run).toEqual({ attempted: 2, sent: 0, failed: 2 })
    const reasons = (
      t.tenant.db.$client
        .query('SELECT channel, failure_reason FROM gift_card_deliveries ORDER BY channel')
        .all() as {
        channel: string
        failure_reason: string
      }[]
    ).map((r) => [r.channel, r.failure_reason])
    expect(reasons[0]![1]).toContain('mailbox full')
    expect(reasons[1]).toEqual(['sms', 'the smtp provider cannot send sms messages'])

    const closed = createMessageSender({ smtpUrl: 'smtp://127.0.0.1:1', smtpFrom: 'gifts@acme.test' })
    const error = await closed
      .send(t.tenant.db, { channel: 'email', to: 'x@example.test', text: 'hi', category: 'test' })
      .catch((e) => e)
    expect(error).toBeInstanceOf(MessageSendError)
    expect(error.provider).toBe('smtp')
  })
})
