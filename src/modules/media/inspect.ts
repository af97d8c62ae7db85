// What a file really is: its type from its magic numbers (file-type), its pixel size (image-size)
// and its SHA-256, checked against every claim made about it (declared type, the Content-Type it
// was uploaded with, its file name's extension) and against what its kind accepts.
import { fileTypeFromBuffer } from 'file-type'
import { imageSize } from 'image-size'
import { ApiError } from '../../platform/foundation/problem'
import { genericContentTypes, isImageType, normalizeContentType, typeOfFilename, typesForKind } from './kinds'

export interface FileClaims {
  kind: string
  declaredMimeType: string | null
  /** The Content-Type the bytes were uploaded with, as the store kept it. */
  contentType: string | null
  filename: string | null
}

export interface Inspection {
  mimeType: string
  width: number | null
  height: number | null
  sizeBytes: number
  checksum: string
}

const refuse = (detail: string, detectedMimeType: string | null) =>
  new ApiError('unsupported_media_type', detail, {
    errors: [{ path: 'object', message: detail }],
    extensions: { detectedMimeType },
  })

export async function inspectFile(bytes: Uint8Array, claims: FileClaims): Promise<Inspection> {
  const detected = (await fileTypeFromBuffer(bytes))?.mime ?? null
  const mimeType = normalizeContentType(detected)
  const accepted = typesForKind(claims.kind)
  if (!mimeType || !(accepted as readonly string[]).includes(mimeType))
    throw refuse(
      `The file is ${mimeType ? `of type ${mimeType}` : 'of no recognised type'}; ` +
        `a ${claims.kind} must be one of ${accepted.join(', ')}`,
      mimeType,
    )
  const claimed: [string, string | null][] = [
    ['the declared mimeType', normalizeContentType(claims.declaredMimeType)],
    ['the upload’s Content-Type', normalizeContentType(claims.contentType)],
    ['the file name’s extension', typeOfFilename(claims.filename)],
  ]
  for (const [source, type] of claimed) {
    if (type && !genericContentTypes.has(type) && type !== mimeType)
      throw refuse(`The file is of type ${mimeType}, not ${type} as ${source} says`, mimeType)
  }
  let width: number | null = null
  let height: number | null = null
  if (isImageType(mimeType)) {
    try {
      const size = imageSize(bytes)
      // EXIF orientations 5..8 turn the picture a quarter: report it as it is shown.
      const turned = size.orientation !== undefined && size.orientation >= 5
      width = turned ? size.height : size.width
      height = turned ? size.width : size.height
    } catch {
      width = null
    }
    if (!width || !height || width < 1 || height < 1)
      throw refuse(`The file claims to be ${mimeType} but its dimensions cannot be read`, mimeType)
  }
  return {
    mimeType,
    width,
    height,
    sizeBytes: bytes.byteLength,
    checksum: new Bun.CryptoHasher('sha256').update(bytes).digest('hex'),
  }
}
