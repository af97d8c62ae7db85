import { made, type WalkFamily } from '../family'

/** A tax is unique per country and state: each call taxes a state of its own. */
let states = 0

export const taxes: WalkFamily = {
  name: 'taxes',
  prefixes: ['/tax'],
  located: false,
  async create(t, tenant) {
    const tax = await made(t, tenant, 'POST', '/tax', {
      title: 'Sales tax',
      countryCode: 'US',
      stateCode: `S${++states}`,
      freight: 0,
      food: 725,
      generalMerchandise: 725,
      wine: 725,
      taxCalculation: 'Added',
    })
    return { id: tax.id }
  },
}
