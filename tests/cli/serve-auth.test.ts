// Over a real socket: x-staff-user-id is always ignored, and trusting identity headers is warned
// about at start-up.
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { makeTestDir, removeTestDir } from '../temp-dirs'

const main = join(import.meta.dir, '..', '..', 'src', 'main.ts')

test('serve ignores x-staff-user-id and warns when identity headers are trusted', async () => {
  const dataDir = makeTestDir('data')
  const proc = Bun.spawn([process.execPath, main, 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // In place when it listens (the demo is made after).
      DEFAULT_TENANT_SEED: 'empty',
      AUTH_TRUST_IDENTITY_HEADERS: 'true',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  try {
    const reader = proc.stdout.getReader()
    let out = ''
    while (!out.includes('\n')) {
      const { value, done } = await reader.read()
      if (done) break
      out += new TextDecoder().decode(value)
    }
    const { listening } = JSON.parse(out.trim().split('\n')[0]!)
    // The embedded default owner (subject "owner") through trusted identity headers: allowed.
    const viaHeaders = await fetch(`${listening}/vendor`, {
      headers: { 'x-auth-provider': 'idp', 'x-auth-user-id': 'owner' },
    })
    expect(viaHeaders.status).toBe(200)
    const list = await fetch(`${listening}/staff-users`, {
      headers: { 'x-auth-provider': 'idp', 'x-auth-user-id': 'owner' },
    })
    const staffUserId = ((await list.json()) as any).staffUsers[0].id
    const viaStaffHeader = await fetch(`${listening}/vendor`, { headers: { 'x-staff-user-id': staffUserId } })
    expect(viaStaffHeader.status).toBe(401)
  } finally {
    proc.kill()
    await proc.exited
    const stderr = await new Response(proc.stderr).text()
    expect(stderr).toContain('AUTH_TRUST_IDENTITY_HEADERS=true')
    removeTestDir(dataDir)
  }
})
