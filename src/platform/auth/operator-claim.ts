// Which JWTs are an operator's: those carrying AUTH_OPERATOR_CLAIM. The operator API accepts
// them; tenant routes refuse them, so one token never holds both kinds of authority.
import type { JWTPayload } from 'jose'
import type { OperatorClaim } from '../../config'

export function carriesOperatorClaim(claims: JWTPayload, claim: OperatorClaim | undefined): boolean {
  if (!claim) return false
  const held = claims[claim.name]
  if (claim.value === null) return held === true
  return held === claim.value || (Array.isArray(held) && held.includes(claim.value))
}
