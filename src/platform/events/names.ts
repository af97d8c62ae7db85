// Event names and their former spellings. Object and action names are snake_case; the kebab-case
// names some events had before (`cash-drawer.close`, `labor-shift.clock-in`) are aliases for one
// release. Matching is case-insensitive, as it always was: `Order` and `order` are one object.
import type { Permission } from '../auth/permissions'
import type { EventCatalogue } from './catalogue'

export interface EventName {
  object: string
  action: string
}

const key = (object: string, action: string) => `${object.toLowerCase()}.${action.toLowerCase()}`

/** Lower-cased former name → current name, and current name → its former names. */
const current = new Map<string, EventName>()
const former = new Map<string, EventName[]>()
/** Each object's and each action's names, former and current, lower-cased (for the log's filters). */
const objectNames = new Map<string, Set<string>>()
const actionNames = new Map<string, Set<string>>()

function alike(names: Map<string, Set<string>>, a: string, b: string): void {
  const group = names.get(a.toLowerCase()) ?? names.get(b.toLowerCase()) ?? new Set<string>()
  group.add(a.toLowerCase()).add(b.toLowerCase())
  names.set(a.toLowerCase(), group)
  names.set(b.toLowerCase(), group)
}

/** The actions of each object the catalogue names, current and former spellings, lower-cased. */
const actionsByObject = new Map<string, Set<string>>()

function know(object: string, action: string): void {
  const actions = actionsByObject.get(object.toLowerCase()) ?? new Set<string>()
  actionsByObject.set(object.toLowerCase(), actions.add(action.toLowerCase()))
}

/** The permission that reads each event, by its current name (the catalogue's `readPermission`). */
const readPermissions = new Map<string, Permission>()

/** Registers the catalogue's names and former names (the event catalogue calls it once, at start). */
export function registerEventNames(catalogue: EventCatalogue): void {
  for (const entry of catalogue) {
    for (const action of entry.actions) {
      know(entry.object, action)
      readPermissions.set(key(entry.object, action), entry.readPermission)
    }
    const { object: oldObject, actions: oldActions = {} } = entry.formerly ?? {}
    if (!oldObject && Object.keys(oldActions).length === 0) continue
    for (const action of entry.actions) {
      const old = { object: oldObject ?? entry.object, action: oldActions[action] ?? action }
      if (key(old.object, old.action) === key(entry.object, action)) continue
      know(old.object, old.action)
      alike(objectNames, old.object, entry.object)
      alike(actionNames, old.action, action)
      current.set(key(old.object, old.action), { object: entry.object, action })
      const spellings = former.get(key(entry.object, action)) ?? []
      if (!spellings.some((s) => key(s.object, s.action) === key(old.object, old.action))) spellings.push(old)
      former.set(key(entry.object, action), spellings)
    }
  }
}

/** The current name of an event named either way. */
export function currentName(name: EventName): EventName {
  return current.get(key(name.object, name.action)) ?? name
}

/** Every spelling an event named either way answers to, lower-cased: the current one first. */
export function spellingsOf(name: EventName): EventName[] {
  const now = currentName(name)
  return [now, ...(former.get(key(now.object, now.action)) ?? [])].map((n) => ({
    object: n.object.toLowerCase(),
    action: n.action.toLowerCase(),
  }))
}

/** The permission that reads an event named either way; null for a name the catalogue lacks. */
export function readPermissionOf(name: EventName): Permission | null {
  const now = currentName(name)
  return readPermissions.get(key(now.object, now.action)) ?? null
}

/** Whether two names, either spelled either way, are the same event. */
export function sameEvent(a: EventName, b: EventName): boolean {
  const x = currentName(a)
  const y = currentName(b)
  return key(x.object, x.action) === key(y.object, y.action)
}

/**
 * The name a subscription receives an event under: the former name it subscribed with, else the
 * event's current name.
 */
export function nameFor(subscribed: EventName, event: EventName): EventName {
  return current.has(key(subscribed.object, subscribed.action)) ? subscribed : currentName(event)
}

/** Every name of an object (`cash_drawer` and `cash-drawer`), lower-cased. */
export const namesOfObject = (object: string): string[] => [
  ...(objectNames.get(object.toLowerCase()) ?? [object.toLowerCase()]),
]

/** Every name of an action (`clock_in` and `clock-in`), lower-cased. */
export const namesOfAction = (action: string): string[] => [
  ...(actionNames.get(action.toLowerCase()) ?? [action.toLowerCase()]),
]

/**
 * What is wrong with subscribing to `name`, naming the field: an object no event has, or an action
 * its object has no event for. Null when the catalogue has it (either spelling), or has not
 * registered (a test of the platform alone).
 */
export function unknownEventProblem(name: EventName): { field: 'object' | 'action'; message: string } | null {
  if (actionsByObject.size === 0) return null
  const actions = actionsByObject.get(name.object.toLowerCase())
  if (!actions)
    return { field: 'object', message: `no event has the object "${name.object}" (see docs/events.md)` }
  if (actions.has(name.action.toLowerCase())) return null
  return {
    field: 'action',
    message: `"${name.object}" has no "${name.action}" event; it has ${[...actions].sort().join(', ')}`,
  }
}
