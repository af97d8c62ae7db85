// Every family the walk knows, one file each (see ../family.ts for how to add one).
import type { WalkFamily } from '../family'
import { giftCards } from './gift-cards'
import { laborShifts } from './labor-shifts'
import { media } from './media'

export const families: WalkFamily[] = [laborShifts, media, giftCards]
