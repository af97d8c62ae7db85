// The `webhooks` section: one operation per event (`vendor.create`), the body every subscriber
// receives (platform/events/delivery.ts) with the event's payload schema, and the Standard
// Webhooks headers it is signed with (platform/events/signing.ts).
import type { EventCatalogue } from '../../events/catalogue'
import { normalizeSchema, type Operation, type Schema } from './json-schema'

export const WEBHOOK_TAG = 'Webhook events'

const header = (name: string, description: string, schema: Schema = { type: 'string' }) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
})

const deliveryHeaders = [
  header(
    'webhook-id',
    'The message id, `msg_` and 32 hex digits: the same on every retry and replay of this event to this subscription. De-duplicate on it.',
  ),
  header('webhook-timestamp', 'Unix seconds of this attempt.', { type: 'integer' }),
  header(
    'webhook-signature',
    '`v1,<base64>`: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the subscription’s `whsec_` secret (Standard Webhooks; verify with any of its libraries).',
  ),
]

const camel = (words: string) =>
  words
    .split(/[^A-Za-z0-9]+/)
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('')

/** `webhooks` of the document: `object.action` -> the POST a subscriber receives. */
export function webhookOperations(catalogue: EventCatalogue): Record<string, { post: Operation }> {
  const byName = new Map<string, { entries: EventCatalogue[number][]; action: string }>()
  for (const entry of catalogue)
    for (const action of entry.actions) {
      const name = `${entry.object}.${action}`
      const known = byName.get(name) ?? { entries: [], action }
      known.entries.push(entry)
      byName.set(name, known)
    }
  const webhooks: Record<string, { post: Operation }> = {}
  for (const [name, { entries, action }] of byName) {
    const object = entries[0]!.object
    const payloads = entries.map((e) => normalizeSchema(JSON.parse(JSON.stringify(e.schema))))
    const formerly = entries[0]!.formerly
    const former = { object: formerly?.object ?? object, action: formerly?.actions?.[action] ?? action }
    const renamed = former.object !== object || former.action !== action
    const named = (now: string, then: string) =>
      now === then ? { type: 'string', const: now } : { type: 'string', enum: [now, then] }
    webhooks[name] = {
      post: {
        tags: [WEBHOOK_TAG],
        operationId: `${camel(`${object} ${action}`)}Event`,
        summary: `${object} ${action}`,
        description: [
          ...entries.map((e) => `Emitted by ${e.emittedBy}. Payload: ${e.payload}.`),
          ...(renamed
            ? [
                `Formerly \`${former.object}.${former.action}\`: a subscription made with that name still receives this event, under that name, until the next release.`,
              ]
            : []),
        ].join('\n\n'),
        security: [],
        parameters: deliveryHeaders,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['object', 'action', 'payload', 'user', 'tenantId'],
                properties: {
                  object: named(object, former.object),
                  action: named(action, former.action),
                  payload: payloads.length === 1 ? payloads[0] : { anyOf: payloads },
                  user: {
                    type: 'string',
                    description: 'The staff user id, or the subject of whoever acted.',
                  },
                  tenantId: { type: 'string' },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: 'Any 2xx answer within the timeout acknowledges the delivery.' },
          '410': { description: 'Gone: disables the subscription; its deliveries become dead letters.' },
        },
      },
    }
  }
  return webhooks
}
