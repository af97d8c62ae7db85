// The HTTP workers' even shares of client connections (platform/http/connection-balance.ts): two
// workers' tables over one data directory, in one process, with a clock the test moves.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { ConnectionBalance } from '../../src/platform/http/connection-balance'
import { makeTestDir, removeTestDir } from '../temp-dirs'

let dataDir: string
let at: number
const clock = () => at

beforeEach(() => {
  dataDir = makeTestDir('balance')
  at = 1_000_000
})
afterEach(() => removeTestDir(dataDir))

/**
 * `rounds` requests from each of `count` connections (ports from `firstPort`): how many
 * connections were told to close. A busy window: 100 requests or more.
 */
function requests(balance: ConnectionBalance, count: number, firstPort = 40_000, rounds = 1): number {
  let closed = 0
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < count; i++) if (balance.closesConnection('127.0.0.1', firstPort + i)) closed++
  return closed
}
const busy = (balance: ConnectionBalance, count: number, firstPort = 40_000) =>
  requests(balance, count, firstPort, Math.ceil(100 / count))

/** Both workers end a window: the lighter first, so the heavier sees its count. */
function endWindows(...workers: ConnectionBalance[]): void {
  at += 250
  for (const worker of workers) worker.endWindow()
}

describe('connection balance between HTTP workers', () => {
  test('a worker holding every connection closes what is above its fair share, once each', () => {
    const first = new ConnectionBalance(dataDir, 1, clock)
    const second = new ConnectionBalance(dataDir, 2, clock)
    expect(busy(first, 4)).toBe(0)
    endWindows(second, first)
    // Two of four: the first request of two connections; their next ones and the others stay.
    expect(requests(first, 4)).toBe(2)
    expect(requests(first, 2, 40_002)).toBe(0)
    // The two reconnected to the other worker: even now, nothing more closes.
    expect(requests(second, 2, 50_000)).toBe(0)
    endWindows(second, first)
    expect(requests(first, 2, 40_002) + requests(second, 2, 50_000)).toBe(0)
  })

  test('a share within a connection (or an eighth) of fair is left alone; more is evened out', () => {
    /** A first window with these counts, then how many of the same connections the next one closes. */
    const closedAfter = (onFirst: number, onSecond: number) => {
      const shared = makeTestDir('balance-split')
      const first = new ConnectionBalance(shared, 1, clock)
      const second = new ConnectionBalance(shared, 2, clock)
      busy(first, onFirst)
      busy(second, onSecond, 50_000)
      if (onFirst < onSecond) endWindows(first, second)
      else endWindows(second, first)
      const closed = [requests(first, onFirst), requests(second, onSecond, 50_000)]
      removeTestDir(shared)
      return closed
    }
    expect(closedAfter(2, 1)).toEqual([0, 0])
    expect(closedAfter(3, 1)).toEqual([1, 0])
    // Of 32, an eighth of the fair 16 is 2.
    expect(closedAfter(17, 15)).toEqual([0, 0])
    expect(closedAfter(19, 13)).toEqual([3, 0])
    expect(closedAfter(10, 22)).toEqual([0, 6])
  })

  test('a quiet worker closes nothing, however its connections are split', () => {
    const first = new ConnectionBalance(dataDir, 1, clock)
    const second = new ConnectionBalance(dataDir, 2, clock)
    requests(first, 4, 40_000, 24)
    endWindows(second, first)
    expect(requests(first, 4)).toBe(0)
  })

  test('the same connection counts once, however many requests it sends', () => {
    const first = new ConnectionBalance(dataDir, 1, clock)
    const second = new ConnectionBalance(dataDir, 2, clock)
    for (let i = 0; i < 50; i++) requests(first, 3)
    requests(second, 2, 50_000)
    endWindows(second, first)
    expect(requests(first, 3) + requests(second, 2, 50_000)).toBe(0)
  })

  test('a worker that stopped publishing, or stopped, is not in the fair share', () => {
    const first = new ConnectionBalance(dataDir, 1, clock)
    const second = new ConnectionBalance(dataDir, 2, clock)
    endWindows(second)
    // The second published 0 a second ago (it died): the first is alone with its four.
    at += 1000
    busy(first, 4)
    first.endWindow()
    expect(requests(first, 4)).toBe(0)

    second.endWindow()
    second.stop()
    busy(first, 4)
    first.endWindow()
    expect(requests(first, 4)).toBe(0)
  })

  test('without workers to share with (no data directory), nothing is closed', () => {
    const alone = new ConnectionBalance(null, 1, clock)
    busy(alone, 10)
    alone.endWindow()
    expect(requests(alone, 10)).toBe(0)
  })
})
