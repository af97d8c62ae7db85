// Who is acting, from where, in which request: the plain value every service receives and
// every audit entry and outbox event records.

export type PrincipalKind =
  | 'jwt'
  | 'identity_headers'
  | 'staff_header'
  | 'passcode_session'
  | 'credential'
  | 'system'

export interface Actor {
  kind: PrincipalKind
  /** The resolved subject: the token's `sub`, `credential:<id>`, `passcode-session:<id>` or `system:<name>`. */
  subject: string
  staffUserId: string | null
  tenantId: string
  locationId: string | null
  requestId: string | null
  ipAddress: string | null
  userAgent: string | null
  method: string | null
  route: string | null
}

/** The actor for writes made by the command line or a background job rather than a request. */
export function systemActor(tenantId: string, name: string, staffUserId: string | null = null): Actor {
  return {
    kind: 'system',
    subject: `system:${name}`,
    staffUserId,
    tenantId,
    locationId: null,
    requestId: null,
    ipAddress: null,
    userAgent: null,
    method: null,
    route: null,
  }
}
