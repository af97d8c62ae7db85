import { defineConfig } from 'drizzle-kit'

// The control database: tenants, and the lookups a bearer token needs before a tenant is known.
export default defineConfig({
  dialect: 'sqlite',
  schema: ['./src/platform/*/control-schema.ts'],
  out: './migrations/control',
})
