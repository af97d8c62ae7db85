// Media storage configuration (MEDIA_*) and the S3 store's public URLs.
import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig, type MediaS3Config } from '../../src/config'
import { S3Store } from '../../src/platform/storage/s3'

describe('media configuration', () => {
  test('defaults: the embedded store, 25 MiB, 15-minute upload URLs', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      mediaMaxBytes: 26_214_400,
      mediaUploadTtlSeconds: 900,
      mediaPublicBaseUrl: undefined,
      mediaS3: undefined,
    })
  })

  test('S3 settings are parsed', () => {
    const config = loadConfig({
      MEDIA_S3_BUCKET: 'menu-media',
      MEDIA_S3_ENDPOINT: 'http://127.0.0.1:9000',
      MEDIA_S3_ACCESS_KEY_ID: 'AKIA',
      MEDIA_S3_SECRET_ACCESS_KEY: 'secret',
      MEDIA_S3_FORCE_PATH_STYLE: 'true',
      MEDIA_S3_PREFIX: 'media/',
      MEDIA_PUBLIC_BASE_URL: 'https://cdn.example.com/',
      MEDIA_MAX_BYTES: '1000',
      MEDIA_UPLOAD_TTL: '60',
    })
    expect(config.mediaS3).toEqual({
      bucket: 'menu-media',
      endpoint: 'http://127.0.0.1:9000/',
      region: 'us-east-1',
      accessKeyId: 'AKIA',
      secretAccessKey: 'secret',
      forcePathStyle: true,
      prefix: 'media/',
    })
    expect(config).toMatchObject({
      mediaPublicBaseUrl: 'https://cdn.example.com',
      mediaMaxBytes: 1000,
      mediaUploadTtlSeconds: 60,
    })
  })

  const bad: [Record<string, string>, string][] = [
    [{ MEDIA_MAX_BYTES: '0' }, 'MEDIA_MAX_BYTES'],
    [{ MEDIA_MAX_BYTES: '10MB' }, 'MEDIA_MAX_BYTES'],
    [{ MEDIA_UPLOAD_TTL: '5' }, 'MEDIA_UPLOAD_TTL'],
    [{ MEDIA_PUBLIC_BASE_URL: 'cdn.example.com' }, 'MEDIA_PUBLIC_BASE_URL'],
    [{ MEDIA_S3_BUCKET: 'Not_A_Bucket' }, 'MEDIA_S3_BUCKET'],
    [{ MEDIA_S3_ENDPOINT: 'http://minio:9000' }, 'MEDIA_S3_ENDPOINT'],
    [{ MEDIA_S3_BUCKET: 'media', MEDIA_S3_ACCESS_KEY_ID: 'AKIA' }, 'MEDIA_S3_SECRET_ACCESS_KEY'],
    [{ MEDIA_S3_BUCKET: 'media', MEDIA_S3_PREFIX: 'no-slash' }, 'MEDIA_S3_PREFIX'],
    [{ MEDIA_S3_BUCKET: 'media', MEDIA_S3_ENDPOINT: 's3.example.com' }, 'MEDIA_S3_ENDPOINT'],
  ]
  for (const [env, variable] of bad) {
    test(`a bad ${variable} is refused with a message naming it`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError)
      expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `))
    })
  }
})

describe('S3 public URLs', () => {
  const base: MediaS3Config = {
    bucket: 'menu-media',
    endpoint: undefined,
    region: 'eu-west-3',
    accessKeyId: undefined,
    secretAccessKey: undefined,
    forcePathStyle: false,
    prefix: 'media/',
  }
  const key = 't1/a1'

  test('AWS: the virtual-host URL of the bucket in its region', () => {
    expect(new S3Store(base, undefined).publicUrl(key)).toBe(
      'https://menu-media.s3.eu-west-3.amazonaws.com/media/t1/a1',
    )
  })

  test('an S3-compatible endpoint, path style or virtual host', () => {
    const endpoint = 'https://storage.example.com/'
    expect(new S3Store({ ...base, endpoint, forcePathStyle: true }, undefined).publicUrl(key)).toBe(
      'https://storage.example.com/menu-media/media/t1/a1',
    )
    expect(new S3Store({ ...base, endpoint }, undefined).publicUrl(key)).toBe(
      'https://menu-media.storage.example.com/media/t1/a1',
    )
  })

  test('MEDIA_PUBLIC_BASE_URL wins', () => {
    expect(new S3Store(base, 'https://cdn.example.com').publicUrl(key)).toBe(
      'https://cdn.example.com/media/t1/a1',
    )
  })

  test('keys that are not <tenant>/<id> are refused (no path games)', () => {
    expect(() => new S3Store(base, undefined).publicUrl('../etc/passwd')).toThrow()
  })
})
