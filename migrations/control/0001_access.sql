CREATE TABLE `api_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`token_hint` text NOT NULL,
	`scopes` text NOT NULL,
	`location_ids` text NOT NULL,
	`rate_limit_per_minute` integer NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_credentials_token_hash_unique` ON `api_credentials` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_credentials_tenant` ON `api_credentials` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `passcode_attempts` (
	`tenant_id` text NOT NULL,
	`staff_user_id` text NOT NULL,
	`failures` integer NOT NULL,
	`window_started_at` text NOT NULL,
	`locked_until` text,
	PRIMARY KEY(`tenant_id`, `staff_user_id`)
);
--> statement-breakpoint
CREATE TABLE `passcode_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`tenant_id` text NOT NULL,
	`staff_user_id` text NOT NULL,
	`location_id` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `passcode_sessions_token_hash_unique` ON `passcode_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `passcode_sessions_staff` ON `passcode_sessions` (`tenant_id`,`staff_user_id`);