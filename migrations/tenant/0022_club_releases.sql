CREATE TABLE `club_release_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`release_id` text NOT NULL,
	`trigger_kind` text NOT NULL,
	`status` text NOT NULL,
	`requested_by` text NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	FOREIGN KEY (`release_id`) REFERENCES `club_releases`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `club_release_runs_release` ON `club_release_runs` (`release_id`,`status`);--> statement-breakpoint
CREATE UNIQUE INDEX `club_release_runs_scheduled` ON `club_release_runs` (`release_id`) WHERE trigger_kind = 'schedule';--> statement-breakpoint
CREATE TABLE `club_releases` (
	`id` text PRIMARY KEY NOT NULL,
	`club_id` text NOT NULL,
	`title` text NOT NULL,
	`status` text NOT NULL,
	`process_date` text NOT NULL,
	`ship_date` text,
	`items` text NOT NULL,
	`delivery_methods` text NOT NULL,
	`activated_at` text,
	`archived_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`club_id`) REFERENCES `clubs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `club_releases_club` ON `club_releases` (`club_id`,`process_date`);--> statement-breakpoint
CREATE INDEX `club_releases_due` ON `club_releases` (`status`,`process_date`);--> statement-breakpoint
CREATE TABLE `club_shipments` (
	`id` text PRIMARY KEY NOT NULL,
	`release_id` text NOT NULL,
	`membership_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`order_id` text,
	`status` text NOT NULL,
	`reason` text,
	`attempts` integer NOT NULL,
	`amount` integer NOT NULL,
	`payment_intent_id` text,
	`last_run_id` text,
	`claimed_by_run_id` text,
	`claimed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`release_id`) REFERENCES `club_releases`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`membership_id`) REFERENCES `club_memberships`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `club_shipments_membership` ON `club_shipments` (`release_id`,`membership_id`);--> statement-breakpoint
CREATE INDEX `club_shipments_status` ON `club_shipments` (`release_id`,`status`);