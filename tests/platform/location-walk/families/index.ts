// Every family the walk knows, one file each (see ../family.ts for how to add one).
import type { WalkFamily } from '../family'
import { experiences } from './experiences'
import { laborShifts } from './labor-shifts'
import { legacyReservations } from './legacy-reservations'
import { media } from './media'
import { reservationTypes } from './reservation-types'
import { tablesReservations } from './tables-reservations'

export const families: WalkFamily[] = [
  laborShifts,
  media,
  experiences,
  tablesReservations,
  legacyReservations,
  reservationTypes,
]
