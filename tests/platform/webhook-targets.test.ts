// Unit rules of webhook delivery: target addresses, signatures, Retry-After, configuration.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { Webhook } from 'standardwebhooks'
import { ConfigError, DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, loadConfig } from '../../src/config'
import { parseRetryAfter } from '../../src/platform/events/delivery'
import { newSigningSecret, signPayload } from '../../src/platform/events/signing'
import { isNonPublicAddress, targetUrlProblem } from '../../src/platform/events/targets'

describe('webhook targets', () => {
  test.each([
    ['127.0.0.1', true],
    ['10.0.0.5', true],
    ['172.16.3.4', true],
    ['172.32.0.1', false],
    ['192.168.0.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['::1', true],
    ['::', true],
    ['fd12::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['::ffff:7f00:1', true],
    ['::ffff:808:808', false],
    ['2606:4700::1111', false],
  ])('%s non-public: %p', (address, expected) => {
    expect(isNonPublicAddress(address)).toBe(expected)
  })

  test('URLs by their literal host', () => {
    expect(targetUrlProblem('https://hooks.example.com/x', false)).toBeNull()
    expect(targetUrlProblem('http://LOCALHOST:3000/', false)).toContain('refused')
    expect(targetUrlProblem('http://api.localhost/', false)).toContain('refused')
    expect(targetUrlProblem('http://0x7f.1/', false)).toContain('refused')
    expect(targetUrlProblem('http://[::ffff:10.0.0.1]/', false)).toContain('refused')
    expect(targetUrlProblem('http://127.0.0.1/', true)).toBeNull()
    expect(targetUrlProblem('file:///etc/passwd', true)).toContain('http')
    expect(targetUrlProblem('not a url', true)).toContain('absolute')
  })
})

describe('signatures', () => {
  test('standardwebhooks verifies what we sign, for any body', () => {
    fc.assert(
      fc.property(fc.string(), fc.uuid(), (text, id) => {
        const secret = newSigningSecret()
        const body = JSON.stringify({ text })
        const timestamp = Math.floor(Date.now() / 1000)
        const signature = signPayload(secret, id, timestamp, body)
        const headers = {
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature,
        }
        expect(new Webhook(secret).verify(body, headers)).toEqual({ text })
        expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow()
      }),
      { numRuns: 50 },
    )
  })

  test('matches the library’s own signature', () => {
    const secret = newSigningSecret()
    const at = new Date('2030-01-01T00:00:00Z')
    expect(signPayload(secret, 'msg_1', at.getTime() / 1000, '{}')).toBe(
      new Webhook(secret).sign('msg_1', at, '{}'),
    )
  })
})

describe('Retry-After', () => {
  const now = Date.parse('2030-01-01T00:00:00Z')
  test('seconds, dates, garbage and a cap', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000)
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:01:00 GMT', now)).toBe(60_000)
    expect(parseRetryAfter('Mon, 31 Dec 2029 00:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeNull()
    expect(parseRetryAfter(null, now)).toBeNull()
    expect(parseRetryAfter('99999999', now)).toBe(24 * 3600 * 1000)
  })
})

describe('webhook configuration', () => {
  test('defaults', () => {
    const config = loadConfig({})
    expect(config.webhookRetryScheduleMs).toEqual(DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS)
    expect(config.webhookRetryScheduleMs).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000,
    ])
    expect(config.webhookAllowPrivateTargets).toBe(false)
  })

  test('WEBHOOK_RETRY_SCHEDULE takes units, milliseconds included', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '10ms, 2s,1m,1h' }).webhookRetryScheduleMs).toEqual([
      10, 2000, 60_000, 3_600_000,
    ])
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5 minutes' })).toThrow(ConfigError)
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '10' })).toThrow('WEBHOOK_RETRY_SCHEDULE')
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '200h' })).toThrow('7 days')
  })

  test('WEBHOOK_ALLOW_PRIVATE_TARGETS is a boolean', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).webhookAllowPrivateTargets).toBe(true)
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS',
    )
  })
})
