import { made, type WalkFamily } from '../family'

/** Drawers, and their entries (located by the drawer, under /drawers/:id/entries). */
export const cashDrawers: WalkFamily = {
  name: 'cash drawers',
  prefixes: ['/cash-management/drawers'],
  located: true,
  async create(t, tenant, locationId) {
    const drawer = await made(t, tenant, 'POST', '/cash-management/drawers', {
      locationId,
      label: 'Bar',
      startingBalance: 10_000,
    })
    await made(t, tenant, 'POST', `/cash-management/drawers/${drawer.id}/entries`, {
      entryType: 'cash_in',
      amount: 500,
    })
    return { id: drawer.id }
  },
  requests: {
    // The sample leaves out `amount`, which a cash_in needs before the drawer is looked up.
    'POST /cash-management/drawers/:id/entries': { body: { entryType: 'cash_in', amount: 1 } },
  },
}
