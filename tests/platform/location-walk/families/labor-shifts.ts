import { made, type WalkFamily } from '../family'

export const laborShifts: WalkFamily = {
  name: 'labor shifts',
  prefixes: ['/labor/shifts'],
  located: true,
  async create(t, tenant, locationId) {
    const worker = await t.addStaff(tenant, { role: 'staff' })
    const job = await made(t, tenant, 'POST', '/labor/jobs', { title: 'Server', defaultWageAmount: 1800 })
    await made(t, tenant, 'POST', '/labor/job-assignments', {
      staffUserId: worker.id,
      laborJobId: job.id,
      locationId,
    })
    const shift = await made(t, tenant, 'POST', '/labor/shifts/clock-in', {
      staffUserId: worker.id,
      laborJobId: job.id,
      locationId,
    })
    return { id: shift.id }
  },
}
