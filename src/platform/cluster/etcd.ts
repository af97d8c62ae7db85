// etcd v3 through its JSON gateway (`/v3/...` on the client URL) with fetch: keys and values are
// base64, 64-bit numbers are strings. Only what the cluster needs: ranges, puts, transactions,
// leases and a watch stream.

const encode = (text: string) => Buffer.from(text).toString('base64')
const decode = (base64: string | undefined) => (base64 ? Buffer.from(base64, 'base64').toString() : '')

/** The end of the range of every key starting with `prefix` (the prefix with its last byte + 1). */
function prefixEnd(prefix: string): string {
  const bytes = Buffer.from(prefix)
  bytes[bytes.length - 1]! += 1
  return bytes.toString('base64')
}

export interface KeyValue {
  key: string
  value: string
  modRevision: number
  lease: string | null
}

/** One condition of a transaction: the key's value or revision as it must be. */
export type Compare =
  | { key: string; modRevision: number }
  | { key: string; absent: true }
  | { key: string; value: string }

export type Operation = { put: string; value: string; lease?: string } | { delete: string }

export interface WatchEvent {
  type: 'put' | 'delete'
  key: string
  value: string
  modRevision: number
}

interface RawKv {
  key: string
  value?: string
  mod_revision?: string
  lease?: string
}

const toKeyValue = (kv: RawKv): KeyValue => ({
  key: decode(kv.key),
  value: decode(kv.value),
  modRevision: Number(kv.mod_revision ?? 0),
  lease: kv.lease && kv.lease !== '0' ? kv.lease : null,
})

export class EtcdError extends Error {}

function compareOf(compare: Compare) {
  const key = encode(compare.key)
  if ('absent' in compare) return { key, target: 'CREATE', result: 'EQUAL', create_revision: '0' }
  if ('value' in compare) return { key, target: 'VALUE', result: 'EQUAL', value: encode(compare.value) }
  return { key, target: 'MOD', result: 'EQUAL', mod_revision: String(compare.modRevision) }
}

function operationOf(operation: Operation) {
  if ('delete' in operation) return { request_delete_range: { key: encode(operation.delete) } }
  return {
    request_put: {
      key: encode(operation.put),
      value: encode(operation.value),
      ...(operation.lease ? { lease: operation.lease } : {}),
    },
  }
}

export class EtcdClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 2000,
  ) {}

  private async call<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const response = await fetch(`${this.baseUrl}/v3/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: signal ?? AbortSignal.timeout(this.timeoutMs),
    })
    const json = (await response.json()) as T & { error?: string; message?: string }
    if (!response.ok || json.error) throw new EtcdError(`etcd ${path}: ${json.message ?? response.status}`)
    return json
  }

  /** Every key under `prefix`, and the store's revision they were read at. */
  async list(prefix: string): Promise<{ kvs: KeyValue[]; revision: number }> {
    const result = await this.call<{ kvs?: RawKv[]; header: { revision: string } }>('kv/range', {
      key: encode(prefix),
      range_end: prefixEnd(prefix),
    })
    return { kvs: (result.kvs ?? []).map(toKeyValue), revision: Number(result.header.revision) }
  }

  async get(key: string): Promise<KeyValue | null> {
    const result = await this.call<{ kvs?: RawKv[] }>('kv/range', { key: encode(key) })
    return result.kvs?.[0] ? toKeyValue(result.kvs[0]) : null
  }

  async put(key: string, value: string, lease?: string): Promise<void> {
    await this.call('kv/put', { key: encode(key), value: encode(value), ...(lease ? { lease } : {}) })
  }

  async delete(key: string): Promise<void> {
    await this.call('kv/deleterange', { key: encode(key) })
  }

  /**
   * Applies `operations` only if every comparison holds; answers the store's revision after them
   * (the mod revision of what they put), or null when a comparison failed.
   */
  async txn(compares: Compare[], operations: Operation[]): Promise<number | null> {
    const result = await this.call<{ succeeded?: boolean; header: { revision: string } }>('kv/txn', {
      compare: compares.map(compareOf),
      success: operations.map(operationOf),
    })
    return result.succeeded === true ? Number(result.header.revision) : null
  }

  async grantLease(ttlSeconds: number): Promise<string> {
    const result = await this.call<{ ID: string }>('lease/grant', { TTL: String(ttlSeconds) })
    return result.ID
  }

  /** Renews the lease; false when it has already expired. */
  async keepAlive(lease: string): Promise<boolean> {
    const result = await this.call<{ result?: { TTL?: string } }>('lease/keepalive', { ID: lease })
    return Number(result.result?.TTL ?? 0) > 0
  }

  async revoke(lease: string): Promise<void> {
    await this.call('lease/revoke', { ID: lease })
  }

  /**
   * Calls `onEvents` for every change under `prefix` after `fromRevision`, until `signal` aborts
   * or the stream breaks (the promise then rejects or resolves; the caller lists again and
   * re-watches).
   */
  async watch(
    prefix: string,
    fromRevision: number,
    onEvents: (events: WatchEvent[]) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const response = await fetch(`${this.baseUrl}/v3/watch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        create_request: { key: encode(prefix), range_end: prefixEnd(prefix), start_revision: fromRevision },
      }),
      signal,
    })
    if (!response.ok || !response.body) throw new EtcdError(`etcd watch: ${response.status}`)
    const decoder = new TextDecoder()
    let buffered = ''
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk, { stream: true })
      let newline = buffered.indexOf('\n')
      while (newline >= 0) {
        const line = buffered.slice(0, newline).trim()
        buffered = buffered.slice(newline + 1)
        newline = buffered.indexOf('\n')
        if (!line) continue
        const message = JSON.parse(line) as {
          result?: { canceled?: boolean; events?: (RawKv & { type?: string; kv: RawKv })[] }
          error?: unknown
        }
        if (message.error || message.result?.canceled) throw new EtcdError('etcd watch canceled')
        const events = message.result?.events ?? []
        if (events.length === 0) continue
        onEvents(
          events.map((event) => ({
            type: event.type === 'DELETE' ? 'delete' : 'put',
            ...toKeyValue(event.kv),
          })),
        )
      }
    }
  }
}
