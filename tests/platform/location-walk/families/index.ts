// Every family the walk knows, one file each (see ../family.ts for how to add one).
import type { WalkFamily } from '../family'
import { cashDrawers } from './cash-drawers'
import { ingredients, lowStock, recipes } from './inventory'
import { laborEmployees, laborJobAssignments, laborJobs } from './labor'
import { laborShifts } from './labor-shifts'
import { media } from './media'

export const families: WalkFamily[] = [
  laborShifts,
  media,
  cashDrawers,
  ingredients,
  recipes,
  lowStock,
  laborJobs,
  laborJobAssignments,
  laborEmployees,
]
