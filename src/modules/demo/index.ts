// The demo tasting room: no routes, jobs or events of its own, only the seed a new tenant may be
// filled with (the tenants family's `seed: demo`).
export { seedDemo } from './seed'
