import { made, type WalkFamily } from '../family'

export const laborJobs: WalkFamily = {
  name: 'labor jobs',
  prefixes: ['/labor/jobs'],
  located: true,
  async create(t, tenant, locationId) {
    const job = await made(t, tenant, 'POST', '/labor/jobs', { title: 'Host', locationId })
    return { id: job.id }
  },
}

export const laborJobAssignments: WalkFamily = {
  name: 'labor job assignments',
  prefixes: ['/labor/job-assignments'],
  located: true,
  async create(t, tenant, locationId) {
    const worker = await t.addStaff(tenant, { role: 'staff', locationId })
    const job = await made(t, tenant, 'POST', '/labor/jobs', { title: 'Runner', locationId })
    const assignment = await made(t, tenant, 'POST', '/labor/job-assignments', {
      staffUserId: worker.id,
      laborJobId: job.id,
      locationId,
    })
    return { id: assignment.id }
  },
}

/** Staff users who work at one location only: a role there and their profile's primary location. */
export const laborEmployees: WalkFamily = {
  name: 'labor employees',
  prefixes: ['/labor/employees'],
  located: true,
  async create(t, tenant, locationId) {
    const worker = await t.addStaff(tenant, { role: 'staff', locationId })
    await made(t, tenant, 'PUT', `/labor/employees/${worker.id}/profile`, { primaryLocationId: locationId })
    return { staffUserId: worker.id }
  },
}
