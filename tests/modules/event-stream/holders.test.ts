// The streams each credential holds across HTTP workers (modules/event-stream/holders.ts): two
// workers' tables over one data directory, in one process, with a clock the test moves.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { StreamHolders } from '../../../src/modules/event-stream/holders'
import { makeTestDir, removeTestDir } from '../../temp-dirs'

let dataDir: string
let at: number
const clock = () => at

beforeEach(() => {
  dataDir = makeTestDir('holders')
  at = 1_000_000
})
afterEach(() => removeTestDir(dataDir))

const owner = 'tenant-a owner'
const manager = 'tenant-a manager'

describe('event streams per credential across workers', () => {
  test('the limit holds over both workers; a stream that ends frees its place on either', () => {
    const first = new StreamHolders(dataDir, 1, clock)
    const second = new StreamHolders(dataDir, 2, clock)
    expect([first.take(owner, 3), second.take(owner, 3), first.take(owner, 3)]).toEqual([true, true, true])
    expect(second.take(owner, 3)).toBe(false)
    expect(first.take(owner, 3)).toBe(false)
    // Another credential counts apart.
    expect(second.take(manager, 3)).toBe(true)
    first.release(owner)
    expect(second.take(owner, 3)).toBe(true)
    expect(first.take(owner, 3)).toBe(false)
  })

  test('a worker that starts again holds none of the streams of the process it replaces', () => {
    const first = new StreamHolders(dataDir, 1, clock)
    expect([first.take(owner, 2), first.take(owner, 2)]).toEqual([true, true])
    const second = new StreamHolders(dataDir, 2, clock)
    expect(second.take(owner, 2)).toBe(false)
    // Worker 1 killed and restarted under the same id.
    const restarted = new StreamHolders(dataDir, 1, clock)
    expect([second.take(owner, 2), restarted.take(owner, 2)]).toEqual([true, true])
    expect(restarted.take(owner, 2)).toBe(false)
  })

  test('a worker that stopped stamping (killed, not restarted) no longer counts; one that stamps does', () => {
    const gone = new StreamHolders(dataDir, 1, clock)
    const live = new StreamHolders(dataDir, 2, clock)
    expect([gone.take(owner, 2), gone.take(owner, 2)]).toEqual([true, true])
    at += 4_000
    live.stamp()
    expect(live.take(owner, 2)).toBe(false)
    at += 2_000
    expect(live.take(owner, 2)).toBe(true)
    // A worker that keeps stamping keeps its count, however long its streams stay open.
    at += 4_000
    live.stamp()
    at += 4_000
    live.stamp()
    const third = new StreamHolders(dataDir, 3, clock)
    expect([third.take(owner, 2), third.take(owner, 2)]).toEqual([true, false])
  })

  test('a release never takes a count below zero', () => {
    const first = new StreamHolders(dataDir, 1, clock)
    first.release(owner)
    expect([first.take(owner, 1), first.take(owner, 1)]).toEqual([true, false])
  })
})
