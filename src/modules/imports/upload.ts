// The multipart form of `POST /imports`: read up to IMPORT_MAX_BYTES (and room for the other
// fields), its `file` part kept as bytes, its other fields checked as a JSON body would be.

import { ApiError, invalid } from '../../platform/foundation/problem'
import { assertBodyChecked, readBody } from '../../platform/http/conventions'
import { assertJsonDepth } from '../../platform/http/request-body'
import { ImportForm, type ImportFormInput } from './model'
import type { ImportFile } from './service'

/** What the form's other fields (kind, mode, mapping...) may add to the file's bytes. */
const FORM_OVERHEAD_BYTES = 64 * 1024
const NDJSON_TYPES = /^application\/(x-)?ndjson|^application\/jsonl|^application\/x-jsonlines/i

export interface ImportUpload {
  form: ImportFormInput
  file: ImportFile
}

const tooLarge = (maxBytes: number) =>
  new ApiError('payload_too_large', `Import files are limited to ${maxBytes} bytes (IMPORT_MAX_BYTES)`)

export async function readImportUpload(
  request: Request,
  limits: { maxBytes: number; maxJsonDepth: number },
): Promise<ImportUpload> {
  const contentType = request.headers.get('content-type') ?? ''
  if (!/^multipart\/form-data/i.test(contentType))
    throw new ApiError('unsupported_media_type', 'Send the file as the `file` part of multipart/form-data')
  let body: Uint8Array
  try {
    body = await readBody(request, limits.maxBytes + FORM_OVERHEAD_BYTES)
  } catch (error) {
    if (error instanceof ApiError && error.code === 'payload_too_large') throw tooLarge(limits.maxBytes)
    throw error
  }
  const parts = await new Response(body, { headers: { 'content-type': contentType } })
    .formData()
    .catch(() => {
      throw invalid('body', 'malformed multipart/form-data')
    })
  const file = parts.get('file')
  if (!(file instanceof Blob)) throw invalid('body/file', 'the form needs a `file` part')
  if (file.size > limits.maxBytes) throw tooLarge(limits.maxBytes)

  const fields: Record<string, unknown> = {}
  for (const [name, value] of parts.entries()) {
    if (name === 'file') continue
    if (typeof value !== 'string') throw invalid(`body/${name}`, 'must be a text field')
    fields[name] = value
  }
  if (typeof fields.emitEvents === 'string' && /^(true|false)$/.test(fields.emitEvents))
    fields.emitEvents = fields.emitEvents === 'true'
  if (typeof fields.mapping === 'string') {
    const text = fields.mapping
    assertJsonDepth(new TextEncoder().encode(text), limits.maxJsonDepth)
    try {
      fields.mapping = JSON.parse(text)
    } catch {
      throw invalid('body/mapping', 'must be a JSON object of column → field')
    }
  }
  assertBodyChecked(ImportForm, fields)
  const form = fields as ImportFormInput
  const name = file instanceof File && file.name ? file.name.slice(0, 200) : null
  // Bun's form parser drops a part's content type it does not know (NDJSON's): the name tells too.
  const ndjson = NDJSON_TYPES.test(file.type) || /\.(ndjson|jsonl)$/i.test(name ?? '')
  const format = form.format ?? (ndjson ? 'ndjson' : 'csv')
  return { form, file: { bytes: await file.bytes(), name, format } }
}
