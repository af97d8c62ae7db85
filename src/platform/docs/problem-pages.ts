// Each problem `type` URL (`/problems/validation-failed`) answers with what the problem means: a
// short HTML page for a browser, the same facts as JSON for anything that asks for JSON.
import { Elysia, t } from 'elysia'
import {
  notFound,
  type ProblemCode,
  problemStatus,
  problemTypes,
  problemTypeUrl,
} from '../foundation/problem'

export const PROBLEM_TAG = 'Problems'

const ProblemType = t.Object(
  {
    code: t.String({ description: 'The `code` of problem documents of this type.' }),
    type: t.String({ description: 'This page: the `type` of those documents.' }),
    title: t.String(),
    status: t.Integer({ description: 'The HTTP status those documents come with.' }),
    explanation: t.String({ description: 'What it means and what to do, in Markdown.' }),
  },
  { $id: '#/components/schemas/ProblemType' },
)

const bySlug = new Map(
  (Object.keys(problemStatus) as ProblemCode[]).map((code) => {
    const { title, explanation } = problemTypes[code]
    const type = problemTypeUrl(code)
    return [type.split('/').at(-1)!, { code, type, title, status: problemStatus[code], explanation }]
  }),
)

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/`([^`]+)`/g, '<code>$1</code>')

const page = (p: typeof ProblemType.static) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>${escapeHtml(p.title)}</title></head>
  <body>
    <h1>${escapeHtml(p.title)}</h1>
    <p>HTTP ${p.status}, <code>code: ${p.code}</code></p>
    <p>${escapeHtml(p.explanation)}</p>
    <p><a href="/docs">API reference</a></p>
  </body>
</html>`

export const problemPageRoutes = () =>
  new Elysia({ name: 'problem-pages', detail: { tags: [PROBLEM_TAG] } }).get(
    '/problems/:slug',
    ({ params, request }) => {
      const problem = bySlug.get(params.slug)
      // The slug is not echoed: whatever was asked for, only the known types are answered.
      if (!problem) throw notFound('Problem type')
      if (/\bjson\b/.test(request.headers.get('accept') ?? '')) return problem
      return new Response(page(problem), { headers: { 'content-type': 'text/html; charset=utf-8' } })
    },
    {
      params: t.Object({
        slug: t.String({ description: 'The problem code with hyphens: `validation-failed`.' }),
      }),
      response: { 200: ProblemType },
      detail: {
        summary: 'Explain a problem type',
        description:
          'The `type` URL of every problem document. HTML unless `Accept` asks for JSON. 404 for an unknown type.',
        security: [],
        responses: { 200: { description: 'OK.', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
  )
