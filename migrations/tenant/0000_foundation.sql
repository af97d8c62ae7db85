CREATE TABLE `audit_entries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`subject` text,
	`staff_user_id` text,
	`tenant_id` text NOT NULL,
	`location_id` text,
	`request_id` text,
	`ip_address` text,
	`user_agent` text,
	`method` text,
	`route` text,
	`action` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text,
	`metadata` text NOT NULL,
	`created_at` text NOT NULL,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_entries_id_unique` ON `audit_entries` (`id`);--> statement-breakpoint
CREATE INDEX `audit_entries_entity` ON `audit_entries` (`entity_type`,`entity_id`);--> statement-breakpoint
CREATE INDEX `audit_entries_created` ON `audit_entries` (`created_at`);--> statement-breakpoint
CREATE TABLE `outbox_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`object` text NOT NULL,
	`action` text NOT NULL,
	`aggregate_id` text,
	`payload` text NOT NULL,
	`user` text,
	`location_id` text,
	`request_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_events_id_unique` ON `outbox_events` (`id`);--> statement-breakpoint
CREATE INDEX `outbox_events_object_action` ON `outbox_events` (`object`,`action`);--> statement-breakpoint
CREATE TABLE `locations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`timezone` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `staff_identities` (
	`id` text PRIMARY KEY NOT NULL,
	`staff_user_id` text NOT NULL,
	`provider` text NOT NULL,
	`subject` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`staff_user_id`) REFERENCES `staff_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `staff_identities_provider_subject` ON `staff_identities` (`provider`,`subject`);--> statement-breakpoint
CREATE TABLE `staff_roles` (
	`id` text PRIMARY KEY NOT NULL,
	`staff_user_id` text NOT NULL,
	`role` text NOT NULL,
	`location_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`staff_user_id`) REFERENCES `staff_users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `staff_roles_staff_user` ON `staff_roles` (`staff_user_id`);--> statement-breakpoint
CREATE TABLE `staff_users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`phone_country_code` text,
	`phone_number` text,
	`postal_code` text,
	`status` text DEFAULT 'active' NOT NULL,
	`passcode_hash` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `staff_users_email_unique` ON `staff_users` (`email`);--> statement-breakpoint
CREATE TABLE `vendors` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`code` text,
	`status` text NOT NULL,
	`website` text,
	`phone` text,
	`email` text,
	`notes` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vendors_code_unique` ON `vendors` (lower("code"));--> statement-breakpoint
CREATE INDEX `vendors_name` ON `vendors` (`name`);