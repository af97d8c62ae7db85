// Building blocks of the pages: loading a resource, a titled section that shows its state, tables,
// charts (uPlot) and formatting.
import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { ApiProblem } from './api'

export interface Loaded<T> {
  data?: T
  error?: Error
  loading: boolean
  reload: () => void
}

/** Runs `load` now and whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true })
  const [round, setRound] = useState(0)
  useEffect(() => {
    let live = true
    setState((previous) => ({ ...previous, loading: true }))
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    )
    return () => {
      live = false
    }
  }, [...deps, round])
  const reload = useCallback(() => setRound((n) => n + 1), [])
  return { ...state, reload }
}

export const describeError = (error: Error) => (error instanceof ApiProblem ? error.advice : error.message)

export function ErrorNote({ error }: { error: Error }) {
  return (
    <p class="error" role="alert">
      {describeError(error)}
    </p>
  )
}

/** A titled part of a page showing its resource: loading, its error, or its content. */
export function Section<T>(props: {
  title: string
  loaded: Loaded<T>
  children: (data: T) => ComponentChildren
  actions?: ComponentChildren
}) {
  const { title, loaded } = props
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`
  return (
    <section aria-labelledby={id} aria-busy={loaded.loading}>
      <header class="section-head">
        <h2 id={id}>{title}</h2>
        {props.actions}
      </header>
      {loaded.error ? (
        <ErrorNote error={loaded.error} />
      ) : loaded.data === undefined ? (
        <p class="muted">Loading…</p>
      ) : (
        props.children(loaded.data)
      )}
    </section>
  )
}

export type Column<T> = [header: string, cell: (row: T) => ComponentChildren]

export function Table<T>(props: { caption: string; columns: Column<T>[]; rows: T[]; empty?: string }) {
  if (props.rows.length === 0) return <p class="muted">{props.empty ?? 'Nothing yet.'}</p>
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map(([header]) => (
              <th scope="col" key={header}>
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row, index) => (
            <tr key={index}>
              {props.columns.map(([header, cell]) => (
                <td key={header} data-label={header}>
                  {cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export interface Series {
  label: string
  values: (number | null)[]
}

const palette = ['#2563eb', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2']

/** A line chart (dates on x); its numbers are also in the table that follows it. */
export function Chart(props: {
  title: string
  days: string[]
  series: Series[]
  format?: (n: number) => string
  axisFormat?: (n: number) => string
}) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const format = props.format ?? String
    const axisFormat = props.axisFormat ?? format
    const plot = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height: 220,
        series: [
          {},
          ...props.series.map((s, i) => ({
            label: s.label,
            stroke: palette[i % palette.length],
            width: 2,
            value: (_: uPlot, v: number | null) => (v === null ? '—' : format(v)),
          })),
        ],
        axes: [{}, { values: (_: uPlot, ticks: number[]) => ticks.map(axisFormat), size: 60 }],
      },
      [props.days.map((day) => Date.parse(`${day}T12:00:00Z`) / 1000), ...props.series.map((s) => s.values)],
      element,
    )
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(280, element.clientWidth), height: 220 }),
    )
    resize.observe(element)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [props.days, props.series, props.format, props.axisFormat])
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={box} role="img" aria-label={`Chart: ${props.title}`} />
    </figure>
  )
}

export const dollars = (cents: number) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' }).format(cents / 100)

/** For chart axes: whole dollars, so the labels fit a phone. */
export const wholeDollars = (cents: number) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }).format(
    cents / 100,
  )

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—')

export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB']
  let value = n
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`
}

/** A status word with its colour and the word itself (colour alone says nothing to some readers). */
export const Badge = (props: { tone: 'good' | 'bad' | 'neutral'; children: ComponentChildren }) => (
  <span class={`badge ${props.tone}`}>{props.children}</span>
)

/** YYYY-MM-DD of `days` days before today (UTC). */
export const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10)
