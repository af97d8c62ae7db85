CREATE TABLE `legacy_token_tenants` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `legacy_token_tenants_tenant` ON `legacy_token_tenants` (`tenant_id`);--> statement-breakpoint
-- Passcode sessions and credentials now live in their tenant's database (tenant migration 0031);
-- their tokens now name their tenant. The ones issued before do not: their tenant is kept here,
-- by token hash, and their rows are carried over as each tenant is first opened
-- (src/platform/auth/legacy-tokens.ts).
INSERT OR IGNORE INTO `legacy_token_tenants` (`token_hash`, `tenant_id`)
  SELECT `token_hash`, `tenant_id` FROM `passcode_sessions`
  UNION ALL
  SELECT `token_hash`, `tenant_id` FROM `api_credentials`;
