import { PROCESS_RELEASES_JOB } from '../../../../src/modules/club-releases/jobs'
import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'
import { madeCustomer } from './customers'

export const clubReleases: WalkFamily = {
  name: 'club releases',
  prefixes: ['/club/:id/releases', '/clubs/:id/releases'],
  located: false,
  async create(t, tenant, locationId) {
    const sku = `WALK-${newId()}`
    await made(t, tenant, 'POST', '/product', {
      title: 'Walk wine',
      type: 'Wine',
      variants: [{ title: '750ml', sku, price: 2000 }],
    })
    const club = await made(t, tenant, 'POST', '/club', { title: 'Walk club', slug: newId() })
    const customer = await madeCustomer(t, tenant)
    await made(
      t,
      tenant,
      'POST',
      '/club-membership',
      {
        customerId: customer.id,
        clubId: club.id,
        orderDeliveryMethod: 'Pickup',
        customerCreditCardId: customer.paymentMethodId,
      },
      { 'x-location-id': locationId },
    )
    const release = await made(t, tenant, 'POST', `/club/${club.id}/releases`, {
      title: 'Walk release',
      processDate: '2026-01-01',
      items: [{ sku, quantity: 1 }],
    })
    await made(t, tenant, 'POST', `/club/${club.id}/releases/${release.id}/activate`)
    await made(t, tenant, 'POST', `/club/${club.id}/releases/${release.id}/process`)
    await t.platform.jobs.runNow(PROCESS_RELEASES_JOB)
    const shipments = await made(t, tenant, 'GET', `/club/${club.id}/releases/${release.id}/shipments`)
    return { id: club.id, releaseId: release.id, shipmentId: shipments.clubShipments[0].id }
  },
}
