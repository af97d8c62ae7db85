import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { closeDrawer } from './close'
import { assignDrawer, createDrawer, drawerDetail, drawerLocated, listDrawers, pauseDrawer } from './drawers'
import { addEntry } from './entries'
import {
  AddEntry,
  AssignDrawer,
  CashDrawer,
  CloseDrawer,
  CloseResult,
  CreateDrawer,
  DrawerDetail,
  DrawerList,
  DrawerListQuery,
  DrawerParams,
  EntryResult,
  PauseDrawer,
  PauseResult,
} from './model'

const MONEY = 'Money is integer cents.'

export const cashRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'cash-management', prefix: '/cash-management', detail: { tags: ['Cash management'] } })
    .use(auth)
    .get(
      '/drawers',
      ({ db, query, locations }) => listDrawers(db, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'cash:read',
        query: DrawerListQuery,
        response: DrawerList,
        detail: {
          summary: 'List cash drawers',
          description:
            'Newest opened first; filter by `locationId`, `state` and `assignedStaffUserId`. Only drawers at the locations the request reaches (and `total` counts only those).',
        },
      },
    )
    .post(
      '/drawers',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createDrawer(db, actor, body)
      },
      {
        permission: 'cash:manage',
        body: CreateDrawer,
        response: { 201: CashDrawer },
        detail: {
          summary: 'Open a cash drawer',
          description: `Opens a drawer (state \`open\`) at \`locationId\` with \`startingBalance\`; the opening staff user is the caller. \`sequenceNumber\` counts drawers of the same label (case-insensitive) at the location; \`label\` gets \` #n\` from the second on. Closeout thresholds default to a warning above 500 and a manager approval above 2000 cents of over/short (null turns one off; the warning may not be above the approval). An unknown location is 400; so is an \`assignedStaffUserId\` that is not an active staff user working at the location (a role there or tenant-wide, or a job there in force that grants something). ${MONEY}`,
        },
      },
    )
    .get('/drawers/:id', ({ db, params }) => drawerDetail(db, params.id), {
      permission: 'cash:read',
      locatedBy: drawerLocated,
      params: DrawerParams,
      response: DrawerDetail,
      detail: {
        summary: 'Get a cash drawer',
        description:
          'The drawer, its entries (oldest first), the reconciliation (actualBalance and status null until closed) and the closeout summary of its shift (live until the drawer closes, frozen after).',
      },
    })
    .post(
      '/drawers/:id/assign',
      ({ db, actor, params, body }) => assignDrawer(db, actor, params.id, body ?? {}),
      {
        permission: 'cash:manage',
        locatedBy: drawerLocated,
        params: DrawerParams,
        body: AssignDrawer,
        response: CashDrawer,
        detail: {
          summary: 'Assign (and lock) a drawer',
          description:
            'Assigns the drawer to `staffUserId` (an active staff user working at the drawer’s location: a role there or tenant-wide, or a job there in force that grants something; 400 otherwise), or to the caller when the body is empty; `null` unassigns. `lock: true` locks it to the assignee: then only they, or someone holding cash:approve, may record entries. Cash payments at the location go to the open drawer assigned to the staff user taking them. A closed drawer is 409.',
        },
      },
    )
    .post(
      '/drawers/:id/entries',
      ({ db, actor, params, body, permissions, set }) => {
        set.status = 201
        return addEntry(db, actor, params.id, body, { canOverrideLock: permissions.has('cash:approve') })
      },
      {
        permission: 'cash:manage',
        locatedBy: drawerLocated,
        params: DrawerParams,
        body: AddEntry,
        response: { 201: EntryResult },
        detail: {
          summary: 'Record a drawer entry',
          description: `\`entryType\`: \`cash_in\` and \`cash_collected\` add \`amount\`; \`cash_out\`, \`payout\`, \`tip_out\` and \`cash_drop\` take it out; \`no_sale\` (the drawer opened, amount 0 or omitted) changes nothing. \`balanceDelta\` is the signed effect and \`expectedBalance\` = startingBalance + the sum of the deltas. \`cash_collected\` is written by cash payments on orders; recording one here is for cash taken outside an order. Only \`open\` drawers take entries: a paused or closed drawer is 409 with \`currentState\`. A drawer locked to another staff user is 403 unless the caller holds cash:approve. The expected balance may go negative (a drop larger than the drawer is recorded as counted). ${MONEY}`,
        },
      },
    )
    .post(
      '/drawers/:id/pause',
      ({ db, actor, params, body }) => pauseDrawer(db, actor, params.id, body ?? {}),
      {
        permission: 'cash:manage',
        locatedBy: drawerLocated,
        params: DrawerParams,
        body: PauseDrawer,
        response: PauseResult,
        detail: {
          summary: 'Pause a drawer and open its replacement',
          description:
            'open → paused. Opens a replacement drawer (same location, base label with the next sequence number, assignment, lock and closeout settings) linked by `replacementDrawerId` / `parentDrawerId`. It starts with `startingBalance`, or the paused drawer’s starting balance with `inheritStartingBalance: true`, else 0. The paused drawer takes no entries and is closed (counted) later. Only open drawers: otherwise 409.',
        },
      },
    )
    .post('/drawers/:id/close', ({ db, actor, params, body }) => closeDrawer(db, actor, params.id, body), {
      permission: 'cash:manage',
      locatedBy: drawerLocated,
      params: DrawerParams,
      body: CloseDrawer,
      response: CloseResult,
      detail: {
        summary: 'Close (count) a drawer',
        description: `open or paused → closed. \`overShortAmount\` = actualBalance − expectedBalance; reconciliation status \`exact\`, \`over\` or \`short\`. A difference strictly above \`closeoutWarningAmount\` needs \`confirmWarning: true\` (else 409 \`warning_confirmation_required\` with the reconciliation). A difference strictly above \`closeoutRequireApprovalAmount\`, or a blocked closeout summary (open orders, unresolved payments), needs a manager: \`managerApprovedByStaffUserId\` naming an active staff user holding cash:approve at the location, or a caller holding it (else 403 \`manager_approval_required\`). A closed drawer is 409. ${MONEY}`,
      },
    })
