// Every family the walk knows, one file each (see ../family.ts for how to add one).
import type { WalkFamily } from '../family'
import { laborShifts } from './labor-shifts'
import { media } from './media'

export const families: WalkFamily[] = [laborShifts, media]
