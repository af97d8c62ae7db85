// Opens the configured media object store.
import type { Config } from '../../config'
import { EmbeddedStore } from './embedded'
import { S3Store } from './s3'
import type { ObjectStore } from './store'

export function openObjectStore(config: Config): ObjectStore {
  if (config.mediaS3) return new S3Store(config.mediaS3, config.mediaPublicBaseUrl)
  return new EmbeddedStore(config.dataDir)
}
