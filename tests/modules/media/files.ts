// Small, real files for media tests, made byte by byte: a PNG (zlib + CRC32 as the format
// requires), a baseline JPEG header with its SOF0 frame size, a GIF and a PDF.
import { deflateSync } from 'node:zlib'

function u32(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255])
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.byteLength
  }
  return out
}

const ascii = (text: string) => new TextEncoder().encode(text)

function chunk(type: string, data: Uint8Array): Uint8Array {
  const typed = concat(ascii(type), data)
  return concat(u32(data.byteLength), typed, u32(Bun.hash.crc32(typed)))
}

/** A valid RGB PNG of the given size (grey pixels); `padding` adds a tEXt chunk of that many bytes. */
export function png(width: number, height: number, padding = 0): Uint8Array {
  const header = concat(u32(width), u32(height), new Uint8Array([8, 2, 0, 0, 0]))
  const rows = new Uint8Array(height * (1 + width * 3)).fill(128)
  for (let y = 0; y < height; y++) rows[y * (1 + width * 3)] = 0
  const text =
    padding > 0 ? [chunk('tEXt', concat(ascii('Comment\0'), new Uint8Array(padding).fill(65)))] : []
  return concat(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...text,
    chunk('IDAT', new Uint8Array(deflateSync(rows))),
    chunk('IEND', new Uint8Array()),
  )
}

/** A JPEG's markers up to its frame header: enough for type and size detection. */
export function jpeg(width: number, height: number): Uint8Array {
  const app0 = [
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
    0x00,
  ]
  const sof0 = [
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    (height >> 8) & 255,
    height & 255,
    (width >> 8) & 255,
    width & 255,
    0x03,
    0x01,
    0x22,
    0x00,
    0x02,
    0x11,
    0x01,
    0x03,
    0x11,
    0x01,
  ]
  return new Uint8Array([0xff, 0xd8, ...app0, ...sof0, 0xff, 0xd9])
}

export function gif(width: number, height: number): Uint8Array {
  return concat(
    ascii('GIF89a'),
    new Uint8Array([width & 255, width >> 8, height & 255, height >> 8, 0, 0, 0]),
    new Uint8Array([0x3b]),
  )
}

export function pdf(): Uint8Array {
  return ascii('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n')
}

export const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex')
