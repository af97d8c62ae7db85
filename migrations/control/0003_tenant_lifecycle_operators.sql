CREATE TABLE `operator_audit_entries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`subject` text NOT NULL,
	`action` text NOT NULL,
	`tenant_id` text,
	`tenant_slug` text,
	`metadata` text NOT NULL,
	`request_id` text,
	`ip_address` text,
	`user_agent` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operator_audit_entries_id_unique` ON `operator_audit_entries` (`id`);--> statement-breakpoint
CREATE INDEX `operator_audit_entries_tenant` ON `operator_audit_entries` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `operator_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`token_hint` text NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operator_keys_token_hash_unique` ON `operator_keys` (`token_hash`);--> statement-breakpoint
ALTER TABLE `tenants` ADD `currency` text DEFAULT 'USD' NOT NULL;--> statement-breakpoint
ALTER TABLE `tenants` ADD `status` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `tenants` ADD `ephemeral` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `tenants` ADD `expires_at` text;--> statement-breakpoint
CREATE INDEX `tenants_expires_at` ON `tenants` (`expires_at`);