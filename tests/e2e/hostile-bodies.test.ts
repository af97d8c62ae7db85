// Hostile JSON bodies against a real `serve`: each refused with a 400 problem document naming the
// limit it broke, none taking the server's memory, and the server answering others meanwhile.
// Before the body limits (platform/http/request-body.ts), twenty bodies nested 10,000 deep took a
// server from 100 MB to 8.5 GB resident.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { processRssMb, processTree } from '../../bench/lib'
import { makeTestDir, removeTestDir } from '../temp-dirs'
import { type RunningServer, runCli, sourceCommand, startServer } from './cli'
import { hostileBodies } from './hostile-bodies'

/** Far above what refusing every body below costs (tens of MB), far below what it cost (GBs). */
const MAX_RSS_GROWTH_MB = 150

describe('hostile JSON bodies', () => {
  let server: RunningServer
  let headers: Record<string, string>
  let routes: [method: string, path: string][]
  // Removed after the server stops, not when beforeAll finishes (what freshDataDir's
  // onTestFinished did): a worker opening the tenant afterwards found no file.
  const env = { DATA_DIR: makeTestDir('data') }
  beforeAll(async () => {
    server = await startServer(sourceCommand, env)
    const { json } = await runCli(sourceCommand, ['token', '--tenant', 'default', '--subject', 'owner'], env)
    headers = { authorization: `Bearer ${json.token}`, 'content-type': 'application/json' }
    const vendor = await fetch(`${server.url}/vendor`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Hostile Glass', code: 'HG' }),
    }).then((r) => r.json() as Promise<{ id: string }>)
    routes = [
      ['POST', '/customers'],
      ['POST', '/order'],
      ['PUT', `/vendor/${vendor.id}`],
    ]
  })
  afterAll(async () => {
    await server.stop()
    removeTestDir(env.DATA_DIR)
  })

  const send = (method: string, path: string, body: string) =>
    fetch(`${server.url}${path}`, { method, headers, body }).then(async (res) => ({
      status: res.status,
      type: res.headers.get('content-type'),
      text: await res.text(),
    }))

  test('each kind is refused on every route, alone and eight at once, and the server keeps its memory and answers others', async () => {
    // Each process of the server (the primary and its workers) on its own.
    const processes = processTree(server.pid)
    const before = processes.map(processRssMb)
    const peak = [...before]
    const sampler = setInterval(() => {
      processes.forEach((pid, i) => {
        peak[i] = Math.max(peak[i]!, processRssMb(pid))
      })
    }, 5)
    try {
      for (const { kind, body, refusal } of hostileBodies()) {
        for (const [method, path] of routes) {
          const alone = await Promise.all(Array.from({ length: 3 }, () => send(method, path, body)))
          const burst = await Promise.all([
            ...Array.from({ length: 8 }, () => send(method, path, body)),
            fetch(`${server.url}/vendor`, { headers }).then((r) => r.status),
          ])
          const others = burst.pop()
          expect(others, `GET /vendor during ${kind}`).toBe(200)
          for (const answer of [...alone, ...(burst as typeof alone)]) {
            expect(answer.status, `${kind} to ${method} ${path}`).toBe(400)
            expect(answer.type).toBe('application/problem+json')
            // The refusal names what is wrong and never carries the refused value.
            expect(answer.text.length).toBeLessThan(4096)
            const problem = JSON.parse(answer.text)
            expect(problem.code).toBe('validation_failed')
            expect(problem.errors[0].message).toMatch(refusal)
          }
        }
      }
    } finally {
      clearInterval(sampler)
    }
    expect(Math.max(...peak.map((mb, i) => mb - before[i]!))).toBeLessThan(MAX_RSS_GROWTH_MB)
    const live = await fetch(`${server.url}/health/live`)
    expect(live.status).toBe(200)
  })
})
