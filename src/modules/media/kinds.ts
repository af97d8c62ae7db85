// What a media asset may be: its kinds, and the file types each kind accepts. Types are checked
// against the bytes themselves (magic numbers), never only against what the client says.

export const imageTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif'] as const
export const documentTypes = ['application/pdf'] as const
export const mediaTypes = [...imageTypes, ...documentTypes] as const
export type MediaType = (typeof mediaTypes)[number]

export const mediaKinds = [
  'product_image',
  'collection_image',
  'location_image',
  'logo',
  'menu_image',
  'staff_photo',
  'experience_image',
  'document',
] as const
export type MediaKind = (typeof mediaKinds)[number]

/** Every kind is an image kind except `document` (PDF: menus, wine lists, spec sheets). */
export function typesForKind(kind: string): readonly MediaType[] {
  return kind === 'document' ? documentTypes : imageTypes
}

export const isImageType = (type: string): boolean => (imageTypes as readonly string[]).includes(type)

/** File name extensions that name one of our types; other extensions claim nothing. */
const extensionTypes: Record<string, MediaType> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  jfif: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  pdf: 'application/pdf',
}

export function typeOfFilename(filename: string | null | undefined): MediaType | null {
  const match = /\.([A-Za-z0-9]+)$/.exec(filename ?? '')
  return match ? (extensionTypes[match[1]!.toLowerCase()] ?? null) : null
}

/** A Content-Type header reduced to its type (`image/JPEG; x=y` -> `image/jpeg`, `image/jpg` -> `image/jpeg`). */
export function normalizeContentType(value: string | null | undefined): string | null {
  const type = value?.split(';')[0]?.trim().toLowerCase()
  if (!type) return null
  if (type === 'image/jpg' || type === 'image/pjpeg') return 'image/jpeg'
  return type
}

/** Content types that claim nothing about the bytes (what clients and S3 send by default). */
export const genericContentTypes = new Set(['application/octet-stream', 'binary/octet-stream'])
