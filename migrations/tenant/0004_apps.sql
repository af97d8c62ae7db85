CREATE TABLE `app_data` (
	`app_id` text PRIMARY KEY NOT NULL,
	`data` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `app_sync_attempt_issues` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`app_sync_attempt_id` text NOT NULL,
	`issue` text NOT NULL,
	FOREIGN KEY (`app_sync_attempt_id`) REFERENCES `app_sync_attempts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `app_sync_attempt_issues_id_unique` ON `app_sync_attempt_issues` (`id`);--> statement-breakpoint
CREATE INDEX `app_sync_attempt_issues_attempt` ON `app_sync_attempt_issues` (`app_sync_attempt_id`);--> statement-breakpoint
CREATE TABLE `app_sync_attempts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`app_sync_id` text NOT NULL,
	`status` text NOT NULL,
	`activity_date` text NOT NULL,
	FOREIGN KEY (`app_sync_id`) REFERENCES `app_syncs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `app_sync_attempts_id_unique` ON `app_sync_attempts` (`id`);--> statement-breakpoint
CREATE INDEX `app_sync_attempts_sync` ON `app_sync_attempts` (`app_sync_id`,`seq`);--> statement-breakpoint
CREATE TABLE `app_syncs` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text,
	`object_type` text NOT NULL,
	`object_id` text NOT NULL,
	`status` text NOT NULL,
	`issues` text NOT NULL,
	`actions` text NOT NULL,
	`last_activity_date` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `app_syncs_app_object` ON `app_syncs` (`app_id`,`object_type`,`object_id`) WHERE app_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `app_syncs_unattributed_object` ON `app_syncs` (`object_type`,`object_id`) WHERE app_id IS NULL;--> statement-breakpoint
CREATE INDEX `app_syncs_object_id` ON `app_syncs` (`object_id`);--> statement-breakpoint
CREATE TABLE `apps` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`homepage_url` text,
	`status` text NOT NULL,
	`sync_status` text NOT NULL,
	`last_synced_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `apps_slug_unique` ON `apps` (lower("slug"));--> statement-breakpoint
CREATE INDEX `apps_name` ON `apps` (`name`);