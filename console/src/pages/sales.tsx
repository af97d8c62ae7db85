// How sales are going: orders and net sales per day and location (ERA metrics), the payment mix,
// gift card liability week by week, club shipment outcomes, and the cash drawers' over/short.
import { useMemo } from 'preact/hooks'
import { eraReport, get } from '../api'
import {
  Badge,
  Chart,
  type Column,
  daysAgo,
  dollars,
  Section,
  type Series,
  Table,
  useLoad,
  when,
  wholeDollars,
} from '../ui'

const DAYS = 28
const WEEKS = 8
const SHIPMENT_STATUSES = ['Processed', 'Pending', 'Declined', 'Skipped', 'OnHold'] as const

interface MetricsRow {
  restaurantGuid: string
  periodStart: string
  netSalesAmount: number
  ordersCount: number
}

/** One series per location, one value per day. */
function perLocation(rows: MetricsRow[], names: Map<string, string>, value: (row: MetricsRow) => number) {
  const days = [...new Set(rows.map((r) => r.periodStart))].sort()
  const locations = [...new Set(rows.map((r) => r.restaurantGuid))]
  const series: Series[] = locations.map((id) => {
    const byDay = new Map(rows.filter((r) => r.restaurantGuid === id).map((r) => [r.periodStart, value(r)]))
    return { label: names.get(id) ?? id, values: days.map((day) => byDay.get(day) ?? 0) }
  })
  return { days, series }
}

function SalesCharts() {
  const from = daysAgo(DAYS)
  const to = daysAgo(1)
  const loaded = useLoad(async () => {
    const [rows, locations] = await Promise.all([
      eraReport<MetricsRow>('metrics', 'day', {
        startBusinessDate: from,
        endBusinessDate: to,
        groupBy: ['RESTAURANT'],
      }),
      get('/locations', { limit: 100 }),
    ])
    const names = new Map(locations.locations.map((l) => [l.id, l.name]))
    return { rows, names }
  }, [])
  const charts = useMemo(
    () =>
      loaded.data && {
        sales: perLocation(loaded.data.rows, loaded.data.names, (r) => r.netSalesAmount),
        orders: perLocation(loaded.data.rows, loaded.data.names, (r) => r.ordersCount),
      },
    [loaded.data],
  )
  return (
    <Section title={`Orders and sales per day, last ${DAYS} days`} loaded={loaded}>
      {(data) =>
        charts && (
          <>
            <div class="charts">
              <Chart
                title="Net sales per day and location"
                {...charts.sales}
                format={dollars}
                axisFormat={wholeDollars}
              />
              <Chart
                title="Orders per day and location"
                {...charts.orders}
                format={(n) => String(Math.round(n))}
              />
            </div>
            <Table<[string, number, number]>
              caption="Totals per location"
              rows={[...data.names].map(([id, name]) => {
                const mine = data.rows.filter((r) => r.restaurantGuid === id)
                return [
                  name,
                  mine.reduce((sum, r) => sum + r.ordersCount, 0),
                  mine.reduce((sum, r) => sum + r.netSalesAmount, 0),
                ]
              })}
              columns={[
                ['Location', (r) => r[0]],
                ['Orders', (r) => r[1]],
                ['Net sales', (r) => dollars(r[2])],
              ]}
            />
          </>
        )
      }
    </Section>
  )
}

function PaymentMix() {
  const range = `btw:${daysAgo(DAYS)}|${daysAgo(0)}`
  const loaded = useLoad(() => get('/payment-mix', { capturedAt: range }), [])
  return (
    <Section title="Payment mix" loaded={loaded}>
      {(mix) => {
        const total = mix.tenders.reduce((sum, t) => sum + t.netAmount, 0) || 1
        return (
          <Table
            caption="Payment mix by tender"
            rows={mix.tenders}
            columns={[
              ['Tender', (t) => t.tender.replace('_', ' ')],
              ['Payments', (t) => t.payments],
              ['Net taken', (t) => dollars(t.netAmount)],
              [
                'Share',
                (t) => (
                  <meter min={0} max={1} value={t.netAmount / total} aria-label={`${t.tender} share`}>
                    {Math.round((100 * t.netAmount) / total)}%
                  </meter>
                ),
              ],
              ['Refunded', (t) => dollars(t.refundedAmount)],
              ['Tips', (t) => dollars(t.tipAmount)],
            ]}
          />
        )
      }}
    </Section>
  )
}

function GiftCardLiability() {
  const loaded = useLoad(async () => {
    const weeks = Array.from({ length: WEEKS }, (_, i) => ({
      from: daysAgo(7 * (WEEKS - i)),
      to: daysAgo(7 * (WEEKS - i - 1) + 1),
    }))
    const reports = await Promise.all(
      weeks.map((w) => get('/gift-card/reports/liability', { from: w.from, to: w.to })),
    )
    return { days: weeks.map((w) => w.to), values: reports.map((r) => r.endingLiability) }
  }, [])
  const series = useMemo(
    () => (loaded.data ? [{ label: 'Liability', values: loaded.data.values }] : []),
    [loaded.data],
  )
  return (
    <Section title="Gift card liability, week by week" loaded={loaded}>
      {(data) => (
        <>
          <Chart
            title="Outstanding gift card balance at the end of each week"
            days={data.days}
            series={series}
            format={dollars}
            axisFormat={wholeDollars}
          />
          <p>
            Today: <strong>{dollars(data.values.at(-1) ?? 0)}</strong>
          </p>
        </>
      )}
    </Section>
  )
}

function ClubShipments() {
  const loaded = useLoad(async () => {
    const { clubs } = await get('/club', { limit: 100 })
    const outcomes: { club: string; release: string; counts: Record<string, number> }[] = []
    for (const club of clubs) {
      const { clubReleases } = await get('/club/{id}/releases', { limit: 20 }, { id: club.id })
      for (const release of clubReleases) {
        const { clubShipments } = await get(
          '/club/{id}/releases/{releaseId}/shipments',
          { limit: 100 },
          { id: club.id, releaseId: release.id },
        )
        const counts: Record<string, number> = {}
        for (const s of clubShipments) counts[s.status] = (counts[s.status] ?? 0) + 1
        outcomes.push({ club: club.title, release: release.title, counts })
      }
    }
    return outcomes
  }, [])
  return (
    <Section title="Club shipment outcomes" loaded={loaded}>
      {(rows) => (
        <Table
          caption="Club shipments per release"
          rows={rows}
          empty="No club releases yet."
          columns={[
            ['Club', (r) => r.club],
            ['Release', (r) => r.release],
            ...SHIPMENT_STATUSES.map(
              (status): Column<(typeof rows)[number]> => [status, (r) => r.counts[status] ?? 0],
            ),
          ]}
        />
      )}
    </Section>
  )
}

function Drawers() {
  const loaded = useLoad(async () => {
    const [drawers, locations] = await Promise.all([
      get('/cash-management/drawers', { limit: 14 }),
      get('/locations', { limit: 100 }),
    ])
    const names = new Map(locations.locations.map((l) => [l.id, l.name]))
    return drawers.drawers.map((d) => ({ ...d, locationName: names.get(d.locationId) ?? d.locationId }))
  }, [])
  return (
    <Section title="Cash drawers" loaded={loaded}>
      {(drawers) => (
        <Table
          caption="Cash drawers, newest first"
          rows={drawers}
          columns={[
            ['Drawer', (d) => d.label],
            ['Location', (d) => d.locationName],
            ['State', (d) => d.state],
            ['Opened', (d) => when(d.openedAt)],
            ['Expected', (d) => dollars(d.expectedBalance)],
            ['Counted', (d) => (d.actualBalance === null ? '—' : dollars(d.actualBalance))],
            [
              'Over/short',
              (d) =>
                d.overShortAmount === null ? (
                  '—'
                ) : (
                  <Badge tone={d.overShortAmount === 0 ? 'good' : 'bad'}>
                    {d.reconciliationStatus} {dollars(d.overShortAmount)}
                  </Badge>
                ),
            ],
          ]}
        />
      )}
    </Section>
  )
}

export function SalesPage() {
  return (
    <>
      <SalesCharts />
      <PaymentMix />
      <GiftCardLiability />
      <ClubShipments />
      <Drawers />
    </>
  )
}
