CREATE TABLE `webhook_dead_letter_actions` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`dead_letter_id` text NOT NULL,
	`action` text NOT NULL,
	`delivery_cycle` integer NOT NULL,
	`note` text,
	`actor_staff_user_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`dead_letter_id`) REFERENCES `webhook_dead_letters`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_dead_letter_actions_id_unique` ON `webhook_dead_letter_actions` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_dead_letter_actions_letter` ON `webhook_dead_letter_actions` (`dead_letter_id`,`seq`);--> statement-breakpoint
CREATE TABLE `webhook_dead_letters` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`object_type` text NOT NULL,
	`action` text NOT NULL,
	`aggregate_id` text,
	`payload_keys` text NOT NULL,
	`status` text NOT NULL,
	`delivery_cycle` integer NOT NULL,
	`available_at` text NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_dead_letters_event_id_unique` ON `webhook_dead_letters` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_dead_letters_status` ON `webhook_dead_letters` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`message_id` text NOT NULL,
	`status` text NOT NULL,
	`delivery_cycle` integer NOT NULL,
	`attempts_in_cycle` integer NOT NULL,
	`next_attempt_at` text,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_subscription` ON `webhook_deliveries` (`event_id`,`subscription_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `webhook_delivery_attempts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`event_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`url` text NOT NULL,
	`attempt_number` integer NOT NULL,
	`delivery_cycle` integer NOT NULL,
	`status` text NOT NULL,
	`request_headers` text NOT NULL,
	`response_status` integer,
	`has_response_body` integer NOT NULL,
	`response_body_bytes` integer NOT NULL,
	`response_excerpt` text,
	`error_message` text,
	`started_at` text NOT NULL,
	`completed_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_delivery_attempts_id_unique` ON `webhook_delivery_attempts` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_delivery_attempts_event` ON `webhook_delivery_attempts` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_delivery_attempts_delivery` ON `webhook_delivery_attempts` (`delivery_id`);--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`family` text NOT NULL,
	`object` text NOT NULL,
	`action` text NOT NULL,
	`url` text NOT NULL,
	`enabled` integer NOT NULL,
	`disabled_reason` text,
	`headers` text NOT NULL,
	`secret` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_match` ON `webhook_subscriptions` (lower("object"),lower("action"));--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_family` ON `webhook_subscriptions` (`family`,`created_at`);--> statement-breakpoint
ALTER TABLE `outbox_events` ADD `dispatched_at` text;--> statement-breakpoint
CREATE INDEX `outbox_events_undispatched` ON `outbox_events` (`seq`) WHERE dispatched_at IS NULL;