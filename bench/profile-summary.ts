// Self time per function of a V8/JSC `.cpuprofile` (as `bun --cpu-prof` writes), top N:
//   bun bench/profile-summary.ts /tmp/prof/CPU.*.cpuprofile [top] [function]
// With a function name, the call paths (three frames up) that spend its self time instead; with
// `--inclusive`, the share of samples under each function (self and callees).
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  children?: number[]
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
}

const inclusive = process.argv.includes('--inclusive')
const [path, topArg = '30', focus] = process.argv.slice(2).filter((arg) => arg !== '--inclusive')
if (!path) throw new Error('usage: bun bench/profile-summary.ts <file.cpuprofile> [top]')
const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const parentOf = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
const nameOf = (id: number) => {
  const frame = byId.get(id)!.callFrame
  const file = frame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`
}
const selfSamples = new Map<string, number>()
for (const id of profile.samples) {
  let name = nameOf(id)
  if (inclusive) {
    const seen = new Set<string>()
    for (let up: number | undefined = id; up !== undefined; up = parentOf.get(up)) seen.add(nameOf(up))
    for (const each of seen) selfSamples.set(each, (selfSamples.get(each) ?? 0) + 1)
    continue
  }
  if (focus) {
    if (byId.get(id)!.callFrame.functionName !== focus) continue
    for (let up = parentOf.get(id), depth = 0; up !== undefined && depth < 3; up = parentOf.get(up), depth++)
      name += `  <  ${nameOf(up)}`
  }
  selfSamples.set(name, (selfSamples.get(name) ?? 0) + 1)
}
const total = profile.samples.length
for (const [name, samples] of [...selfSamples].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) {
  console.log(`${((100 * samples) / total).toFixed(1).padStart(5)}%  ${name}`)
}
