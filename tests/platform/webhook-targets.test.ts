// Unit rules of webhook delivery: target addresses (when saved and at connect time), signatures,
// Retry-After, configuration.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import fc from 'fast-check'
import ipaddr from 'ipaddr.js'
import { Webhook } from 'standardwebhooks'
import { ConfigError, DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, loadConfig } from '../../src/config'
import { parseRetryAfter } from '../../src/platform/events/delivery'
import { newSigningSecret, signPayload } from '../../src/platform/events/signing'
import {
  embeddedIPv4,
  fetchTarget,
  nonPublicRange,
  TargetRefusedError,
  targetUrlProblem,
} from '../../src/platform/events/targets'

const NOT_PUBLIC_IPV4: [string, string][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.254', 'carrierGradeNat'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'linkLocal'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['192.168.1.1', 'private'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.51.100.1', 'reserved'],
  ['203.0.113.1', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
]

const NOT_PUBLIC_IPV6: [string, string][] = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['fe80::1', 'linkLocal'],
  ['febf:ffff::1', 'linkLocal'],
  ['ff02::1', 'multicast'],
  ['ff0e::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['100::1', 'discard'],
  ['fec0::1', 'deprecatedSiteLocal'],
  // IPv6 forms that carry a non-public IPv4 address.
  ['::ffff:127.0.0.1', 'loopback (IPv4-mapped address of 127.0.0.1)'],
  ['::ffff:7f00:1', 'loopback (IPv4-mapped address of 127.0.0.1)'],
  ['::ffff:169.254.169.254', 'linkLocal (IPv4-mapped address of 169.254.169.254)'],
  ['::7f00:1', 'loopback (IPv4-compatible address of 127.0.0.1)'],
  ['::a00:1', 'private (IPv4-compatible address of 10.0.0.1)'],
  // ipaddr.js reads the dotted spelling `::a.b.c.d` as IPv4-mapped; either way the IPv4 address decides.
  ['::127.0.0.1', 'loopback (IPv4-mapped address of 127.0.0.1)'],
  ['::ffff:0:7f00:1', 'loopback (IPv4-translated address of 127.0.0.1)'],
  ['::ffff:0:192.168.0.1', 'private (IPv4-translated address of 192.168.0.1)'],
  ['2002:7f00:1::', 'loopback (6to4 address of 127.0.0.1)'],
  ['2002:c0a8:101::', 'private (6to4 address of 192.168.1.1)'],
  ['2002:a9fe:a9fe:1::5', 'linkLocal (6to4 address of 169.254.169.254)'],
  ['64:ff9b::10.0.0.1', 'private (NAT64 address of 10.0.0.1)'],
  ['64:ff9b::7f00:1', 'loopback (NAT64 address of 127.0.0.1)'],
  ['64:ff9b:1::a00:1', 'rfc6052'],
  ['64:ff9b:1:ffff::8.8.8.8', 'rfc6052'],
  // Teredo: the client address is the last 32 bits, every bit flipped (RFC 4380's own example).
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved (Teredo address of 192.0.2.45)'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback (Teredo address of 127.0.0.1)'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private (Teredo address of 10.0.0.1)'],
]

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '172.32.0.1',
  '100.128.0.1',
  '198.20.0.1',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '2002:808:808::1',
  '64:ff9b::1.1.1.1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
]

describe('non-public addresses', () => {
  test.each([...NOT_PUBLIC_IPV4, ...NOT_PUBLIC_IPV6])('%s is %s', (address, reason) => {
    expect(nonPublicRange(address)).toBe(reason)
  })

  test.each(PUBLIC)('%s is public', (address) => {
    expect(nonPublicRange(address)).toBeNull()
  })

  test('the IPv4 address inside each IPv6 form', () => {
    const inside = (address: string) => {
      const found = embeddedIPv4(ipaddr.IPv6.parse(address))
      return found && `${found.form} ${found.ipv4}`
    }
    expect(inside('::ffff:1.2.3.4')).toBe('IPv4-mapped 1.2.3.4')
    expect(inside('::ffff:0:1.2.3.4')).toBe('IPv4-translated 1.2.3.4')
    expect(inside('::102:304')).toBe('IPv4-compatible 1.2.3.4')
    expect(inside('64:ff9b::1.2.3.4')).toBe('NAT64 1.2.3.4')
    expect(inside('2002:102:304:5::6')).toBe('6to4 1.2.3.4')
    expect(inside('2001:0:4136:e378:8000:63bf:fefd:fcfb')).toBe('Teredo 1.2.3.4')
    expect(inside('::1')).toBeNull()
    expect(inside('::')).toBeNull()
    expect(inside('2606:4700:4700::1111')).toBeNull()
  })

  test('text that is no address is not public', () => {
    expect(nonPublicRange('hooks.example.com')).toBe('not an IP address')
  })
})

describe('target URLs when saved', () => {
  test.each([
    // Odd IPv4 spellings, as WHATWG URL parsing normalises them.
    ['http://2130706433/', '127.0.0.1 is loopback'],
    ['http://0x7f.1/', '127.0.0.1 is loopback'],
    ['http://0177.0.0.1/', '127.0.0.1 is loopback'],
    ['http://127.1/', '127.0.0.1 is loopback'],
    ['http://0/', '0.0.0.0 is unspecified'],
    ['http://0xa9.254.169.254/latest', '169.254.169.254 is linkLocal'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is loopback (IPv4-mapped address of 127.0.0.1)'],
    ['http://[::127.0.0.1]/', '::7f00:1 is loopback (IPv4-compatible address of 127.0.0.1)'],
    ['http://[::ffff:0:7f00:1]/', 'loopback (IPv4-translated address of 127.0.0.1)'],
    ['http://[2002:c0a8:101::]:8080/', 'private (6to4 address of 192.168.1.1)'],
    ['http://[64:ff9b::10.0.0.1]/', 'private (NAT64 address of 10.0.0.1)'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'loopback (Teredo address of 127.0.0.1)'],
    ['http://[FE80::1]/', 'fe80::1 is linkLocal'],
    ['http://[::]/', ':: is unspecified'],
    ['http://LOCALHOST:3000/', 'localhost is a local name'],
    ['http://localhost./', 'localhost is a local name'],
    ['http://api.localhost/', 'api.localhost is a local name'],
    ['http://printer.local/', 'printer.local is a local name'],
    ['http://metadata.google.internal/', 'metadata.google.internal is a local name'],
  ])('%s is refused: %s', (url, reason) => {
    const problem = targetUrlProblem(url, false)
    expect(problem).toContain(reason)
    expect(problem).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true')
  })

  test.each([
    'https://hooks.example.com/x',
    'http://8.8.8.8/',
    'http://[2606:4700:4700::1111]/',
    'http://[2002:808:808::1]/',
    'https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/',
  ])('%s is accepted', (url) => {
    expect(targetUrlProblem(url, false)).toBeNull()
  })

  test('WEBHOOK_ALLOW_PRIVATE_TARGETS allows non-public hosts but not other schemes', () => {
    expect(targetUrlProblem('http://127.0.0.1/', true)).toBeNull()
    expect(targetUrlProblem('http://[::ffff:7f00:1]/', true)).toBeNull()
    expect(targetUrlProblem('file:///etc/passwd', true)).toContain('http')
    expect(targetUrlProblem('not a url', true)).toContain('absolute')
  })
})

describe('target addresses at connect time', () => {
  let receiver: ReturnType<typeof Bun.serve>
  let hosts: string[]
  beforeEach(() => {
    hosts = []
    receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(request) {
        hosts.push(request.headers.get('host') ?? '')
        return new Response('ok')
      },
    })
  })
  afterEach(() => receiver.stop(true))

  const resolvingTo = (...addresses: string[]) => {
    const asked: string[] = []
    const resolveHost = async (host: string) => {
      asked.push(host)
      return addresses
    }
    return { asked, resolveHost }
  }
  const post = { method: 'POST', body: '{}' }

  test.each([
    [['127.0.0.1'], 'hooks.example.com resolves to 127.0.0.1, which is loopback'],
    [['8.8.8.8', '10.0.0.1'], 'hooks.example.com resolves to 10.0.0.1, which is private'],
    [['::ffff:7f00:1'], 'which is loopback (IPv4-mapped address of 127.0.0.1)'],
    [['2002:a9fe:a9fe::'], 'which is linkLocal (6to4 address of 169.254.169.254)'],
    [['fd00::1'], 'which is uniqueLocal'],
  ])('a name resolving to %p is refused before any request', async (addresses, reason) => {
    const dns = resolvingTo(...addresses)
    const url = `http://hooks.example.com:${receiver.port}/hook`
    const refusal = fetchTarget(url, post, { allowPrivate: false, resolveHost: dns.resolveHost })
    await expect(refusal).rejects.toBeInstanceOf(TargetRefusedError)
    await expect(refusal).rejects.toThrow(reason)
    expect(dns.asked).toEqual(['hooks.example.com'])
    expect(hosts).toEqual([])
  })

  test('a literal non-public address is refused without resolving', async () => {
    const dns = resolvingTo('8.8.8.8')
    const refusal = fetchTarget(`http://127.1:${receiver.port}/`, post, {
      allowPrivate: false,
      resolveHost: dns.resolveHost,
    })
    await expect(refusal).rejects.toThrow('127.0.0.1 is loopback')
    expect(dns.asked).toEqual([])
    expect(hosts).toEqual([])
  })

  test('the request goes to the address checked, once resolved, with the URL’s own Host', async () => {
    const dns = resolvingTo('127.0.0.1')
    const response = await fetchTarget(`http://receiver.test:${receiver.port}/hook`, post, {
      allowPrivate: true,
      resolveHost: dns.resolveHost,
    })
    expect(response.status).toBe(200)
    expect(dns.asked).toEqual(['receiver.test'])
    expect(hosts).toEqual([`receiver.test:${receiver.port}`])
  })

  test('over https the certificate is checked against the name in the URL', async () => {
    const fixture = (name: string) => Bun.file(join(import.meta.dir, 'fixtures', name)).text()
    const [key, cert] = await Promise.all([
      fixture('receiver-test-key.pem'),
      fixture('receiver-test-cert.pem'),
    ])
    const secure = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      tls: { key, cert },
      fetch: (request) => new Response(request.headers.get('host')),
    })
    try {
      const send = (url: string) =>
        fetchTarget(
          url,
          { tls: { ca: cert } },
          { allowPrivate: true, resolveHost: async () => ['127.0.0.1'] },
        )
      const response = await send(`https://receiver.test:${secure.port}/`)
      expect(await response.text()).toBe(`receiver.test:${secure.port}`)
      // The certificate names receiver.test only: another name at the same address fails.
      await expect(send(`https://other.test:${secure.port}/`)).rejects.toMatchObject({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      })
    } finally {
      secure.stop(true)
    }
  })

  test('an address that refuses the connection gives way to the next one', async () => {
    // Nothing listens on 127.0.0.2: the receiver is bound to 127.0.0.1 only.
    const dns = resolvingTo('127.0.0.2', '127.0.0.1')
    const response = await fetchTarget(`http://receiver.test:${receiver.port}/`, post, {
      allowPrivate: true,
      resolveHost: dns.resolveHost,
    })
    expect(response.status).toBe(200)
    expect(hosts).toHaveLength(1)
    await expect(
      fetchTarget(`http://receiver.test:${receiver.port}/`, post, {
        allowPrivate: true,
        resolveHost: resolvingTo('127.0.0.2').resolveHost,
      }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' })
  })

  test('a name that does not resolve is a failure, not a refusal', async () => {
    const failing = async () => {
      throw new Error('ENOTFOUND')
    }
    const attempt = fetchTarget('https://nowhere.example/', post, {
      allowPrivate: false,
      resolveHost: failing,
    })
    await expect(attempt).rejects.toThrow('could not resolve nowhere.example: ENOTFOUND')
    await expect(attempt).rejects.not.toBeInstanceOf(TargetRefusedError)
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
