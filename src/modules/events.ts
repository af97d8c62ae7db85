// The event catalogue: every event a webhook subscriber can receive, with the schema of its
// payload. docs/events.md and the OpenAPI `webhooks` are rendered from it.
import type { EventCatalogue } from '../platform/events/catalogue'

export const eventCatalogue: EventCatalogue = []
