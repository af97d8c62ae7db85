import { withMembers } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import * as model from './model'
import { CashDrawer, CloseoutSummary, DrawerEntry } from './model'
import { cashRoutes } from './routes'

export const cashFamily = family({
  name: 'cash',
  tags: {
    'Cash management': 'Cash drawers: open, assign, entries, pause and close-out.',
  },
  models: { cash: model },
  events: [
    {
      object: 'cash_drawer',
      readPermission: 'cash:read',
      formerly: { object: 'cash-drawer' },
      actions: ['create', 'assign', 'pause'],
      emittedBy: '`/cash-management/drawers` and its assign and pause routes',
      payload: 'the drawer',
      schema: CashDrawer,
    },
    {
      object: 'cash_drawer',
      readPermission: 'cash:read',
      formerly: { object: 'cash-drawer' },
      actions: ['entry'],
      emittedBy: '`POST /cash-management/drawers/{id}/entries`; cash payments and refunds',
      payload: 'the drawer, plus `entry` (the new one)',
      schema: withMembers(CashDrawer, { entry: DrawerEntry }),
    },
    {
      object: 'cash_drawer',
      readPermission: 'cash:read',
      formerly: { object: 'cash-drawer' },
      actions: ['close'],
      emittedBy: '`POST /cash-management/drawers/{id}/close`',
      payload: 'the drawer, plus `closeoutSummary`',
      schema: withMembers(CashDrawer, { closeoutSummary: CloseoutSummary }),
    },
  ],
  routes: (platform) => [cashRoutes(platform.auth)],
})

// What the other families may use.
export { closeDrawer } from './close'
export { createDrawer, drawerLocated, findDrawerRow, getDrawerRow } from './drawers'
export { appendDrawerEntry, cashDrawerFor } from './entries'
export { lendToCash } from './lent'
