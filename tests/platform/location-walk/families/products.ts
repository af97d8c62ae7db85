import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'

export const products: WalkFamily = {
  name: 'products',
  prefixes: ['/product'],
  located: false,
  async create(t, tenant, locationId) {
    const product = await made(t, tenant, 'POST', '/product', {
      title: 'Estate Cabernet',
      type: 'Wine',
      variants: [
        {
          title: '750ml',
          sku: newId(),
          price: 4500,
          inventory: [{ inventoryLocationId: locationId, availableForSaleCount: 12 }],
        },
      ],
    })
    return { id: product.id }
  },
}
