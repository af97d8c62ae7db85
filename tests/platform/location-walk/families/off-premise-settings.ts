import { made, type WalkFamily } from '../family'

/** The location's off-premise settings, saved with one third-party channel. */
export const offPremiseSettings: WalkFamily = {
  name: 'off-premise settings',
  prefixes: ['/shipping/off-premise'],
  located: true,
  async create(t, tenant, locationId) {
    const settings = await made(t, tenant, 'PUT', `/shipping/off-premise/settings?locationId=${locationId}`, {
      thirdPartyChannels: [{ title: 'Courier app', provider: 'courier' }],
    })
    return { channelId: settings.thirdPartyChannels[0].id }
  },
}
