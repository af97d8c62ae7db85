// A local stand-in for the Stripe API that records every call, for the stripe provider's tests.
import type { Server } from 'bun'

export interface RecordedCall {
  method: string
  path: string
  authorization: string | null
  idempotencyKey: string | null
  form: Record<string, string>
  raw: string
}

export interface FakeStripe {
  url: string
  calls: RecordedCall[]
  stop(): void
}

const card = (id: string, customer: string | null) => ({
  id,
  object: 'payment_method',
  type: 'card',
  customer,
  card: { brand: 'visa', last4: '4242', exp_month: 8, exp_year: 2031, funding: 'credit', country: 'US' },
  created: 1_700_000_000,
  livemode: false,
  metadata: {},
})

const stripeError = (status: number, type: string, message: string, code?: string) =>
  Response.json({ error: { type, message, ...(code ? { code } : {}) } }, { status })

/** `holdCustomers`: customer creations are answered only once this many have arrived (a race, made sure). */
export function startFakeStripe(options: { holdCustomers?: number } = {}): FakeStripe {
  const calls: RecordedCall[] = []
  const attached = new Map<string, string>()
  /** Customers made, by the idempotency key they were made with: the same key answers the same one (as at Stripe). */
  const customersByKey = new Map<string, string>()
  let customers = 0
  const held: (() => void)[] = []
  const customerArrived = () =>
    new Promise<void>((resolve) => {
      held.push(resolve)
      if (held.length >= (options.holdCustomers ?? 1)) for (const release of held.splice(0)) release()
    })
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      const raw = await request.text()
      const form = Object.fromEntries(new URLSearchParams(request.method === 'GET' ? url.search : raw))
      calls.push({
        method: request.method,
        path: url.pathname,
        authorization: request.headers.get('authorization'),
        idempotencyKey: request.headers.get('idempotency-key'),
        form,
        raw,
      })
      const path = url.pathname
      if (request.method === 'POST' && path === '/v1/customers') {
        await customerArrived()
        const key = request.headers.get('idempotency-key')
        const id = (key && customersByKey.get(key)) || `cus_fake${++customers}`
        if (key) customersByKey.set(key, id)
        return Response.json({ id, object: 'customer', email: form.email ?? null })
      }
      if (request.method === 'POST' && path === '/v1/payment_methods') {
        if (form['card[token]'] === 'tok_bad')
          return stripeError(400, 'invalid_request_error', 'No such token: tok_bad', 'resource_missing')
        return Response.json(card(`pm_from_${form['card[token]']}`, null))
      }
      let match = /^\/v1\/payment_methods\/([^/]+)\/attach$/.exec(path)
      if (request.method === 'POST' && match) {
        const id = match[1]!
        if (id === 'pm_declined')
          return stripeError(402, 'card_error', 'Your card was declined.', 'card_declined')
        if (id === 'pm_outage') return stripeError(500, 'api_error', 'Something went wrong on our end.')
        if (id.startsWith('pm_missing'))
          return stripeError(
            404,
            'invalid_request_error',
            `No such PaymentMethod: '${id}'`,
            'resource_missing',
          )
        attached.set(id, form.customer!)
        return Response.json(card(id, form.customer!))
      }
      match = /^\/v1\/payment_methods\/([^/]+)\/detach$/.exec(path)
      if (request.method === 'POST' && match) {
        const id = match[1]!
        if (!attached.has(id))
          return stripeError(
            404,
            'invalid_request_error',
            `No such PaymentMethod: '${id}'`,
            'resource_missing',
          )
        attached.delete(id)
        return Response.json(card(id, null))
      }
      match = /^\/v1\/customers\/([^/]+)\/payment_methods$/.exec(path)
      if (request.method === 'GET' && match) {
        const data = [...attached].filter(([, c]) => c === match![1]).map(([id, c]) => card(id, c))
        return Response.json({ object: 'list', data, has_more: false, url: path })
      }
      return stripeError(
        404,
        'invalid_request_error',
        `Unrecognized request URL (${request.method}: ${path})`,
      )
    },
  })
  return { url: `http://127.0.0.1:${server.port}/`, calls, stop: () => server.stop(true) }
}
