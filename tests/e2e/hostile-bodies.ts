// Hostile JSON bodies, each under MAX_BODY_BYTES so that only its shape can hurt: shared by the
// end-to-end test (hostile-bodies.test.ts) and the benchmark (bench/hostile-bodies.ts).

const nested = (open: string, close: string, depth: number) =>
  `{"firstName":"A","lastName":"B","name":"C","x":${open.repeat(depth)}1${close.repeat(depth)}}`

export interface HostileBody {
  kind: string
  body: string
  /** What the refusal's first error must say. */
  refusal: RegExp
}

export const hostileBodies = (): HostileBody[] => [
  { kind: 'objects nested 10,000 deep', body: nested('{"a":', '}', 10_000), refusal: /MAX_JSON_DEPTH/ },
  { kind: 'arrays nested 10,000 deep', body: nested('[', ']', 10_000), refusal: /MAX_JSON_DEPTH/ },
  {
    kind: '100,000-item array',
    body: `{"firstName":"A","lastName":"B","name":"C","x":[${Array(100_000).fill(1).join(',')}]}`,
    refusal: /holds more than \d+ items/,
  },
  {
    kind: '10,000 unknown keys',
    body: JSON.stringify(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]))),
    refusal: /holds more than \d+ keys/,
  },
  {
    kind: '900 KB string',
    body: JSON.stringify({ firstName: 'x'.repeat(900_000), lastName: 'B', name: 'x'.repeat(900) }),
    refusal: /./,
  },
  {
    // As many wrong values as the limits let through: Elysia's refusal carried the whole body once per error.
    kind: 'many errors at the limits',
    body: JSON.stringify({
      lineItems: Array.from({ length: 200 }, () => ({
        lineType: 1,
        quantity: 'x'.repeat(1500),
        unitPrice: {},
      })),
      firstName: [],
      lastName: {},
      name: [],
    }),
    refusal: /./,
  },
]
