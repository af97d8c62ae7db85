import { defineConfig } from 'drizzle-kit'

// Every table that lives in a tenant's own database: platform tables and one schema.ts per module.
export default defineConfig({
  dialect: 'sqlite',
  schema: ['./src/platform/*/schema.ts', './src/modules/*/schema.ts'],
  out: './migrations/tenant',
})
