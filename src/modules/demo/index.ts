// What the other families may use.
export { seedDemo } from './seed'
