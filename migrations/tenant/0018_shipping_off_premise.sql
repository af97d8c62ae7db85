CREATE TABLE `off_premise_channels` (
	`id` text PRIMARY KEY NOT NULL,
	`location_id` text NOT NULL,
	`position` integer NOT NULL,
	`title` text NOT NULL,
	`provider` text NOT NULL,
	`status` text NOT NULL,
	`snooze_until` text,
	`enabled_fulfillment_modes` text NOT NULL,
	`accepts_scheduled_orders` integer NOT NULL,
	`auto_accept_orders` integer NOT NULL,
	`throttling_minutes` integer NOT NULL,
	`fulfillment_controls` text NOT NULL,
	`next_snooze_ends_at` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `off_premise_channels_location` ON `off_premise_channels` (`location_id`,`position`);--> statement-breakpoint
CREATE INDEX `off_premise_channels_snooze` ON `off_premise_channels` (`next_snooze_ends_at`);--> statement-breakpoint
CREATE TABLE `off_premise_notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`event` text NOT NULL,
	`template` text NOT NULL,
	`channel` text NOT NULL,
	`status` text NOT NULL,
	`recipient` text,
	`subject` text,
	`body` text NOT NULL,
	`provider` text,
	`provider_message_id` text,
	`claimed_at` text,
	`sent_at` text,
	`failure_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `off_premise_notifications_order` ON `off_premise_notifications` (`order_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `off_premise_notifications_status` ON `off_premise_notifications` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `off_premise_settings` (
	`id` text PRIMARY KEY NOT NULL,
	`location_id` text NOT NULL,
	`quote_time_strategy` text NOT NULL,
	`takeout_quote_minutes` integer NOT NULL,
	`delivery_quote_minutes` integer NOT NULL,
	`takeout_throttling_minutes` integer NOT NULL,
	`delivery_throttling_minutes` integer NOT NULL,
	`first_party_delivery_enabled` integer NOT NULL,
	`allow_scheduled_orders` integer NOT NULL,
	`batch_ready_enabled` integer NOT NULL,
	`guest_messaging_enabled` integer NOT NULL,
	`lead_time_hours` integer NOT NULL,
	`dispatch_assignment_mode` text NOT NULL,
	`online_ordering_hours` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `off_premise_settings_location_id_unique` ON `off_premise_settings` (`location_id`);--> statement-breakpoint
CREATE TABLE `order_off_premise` (
	`order_id` text PRIMARY KEY NOT NULL,
	`location_id` text NOT NULL,
	`mode` text NOT NULL,
	`scheduled` integer NOT NULL,
	`promised_fulfillment_at` text NOT NULL,
	`channel` text NOT NULL,
	`customer` text NOT NULL,
	`quote` text NOT NULL,
	`ready_at` text,
	`staging_state` text NOT NULL,
	`batch_id` text,
	`staging` text NOT NULL,
	`guest_messaging` text NOT NULL,
	`pickup` text,
	`delivery` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `order_off_premise_pacing` ON `order_off_premise` (`location_id`,`mode`,`promised_fulfillment_at`);--> statement-breakpoint
CREATE INDEX `order_off_premise_batch` ON `order_off_premise` (`location_id`,`batch_id`);--> statement-breakpoint
CREATE TABLE `shipping_configurations` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `shipping_configurations_title` ON `shipping_configurations` (`title`);--> statement-breakpoint
CREATE TABLE `shipping_regions` (
	`id` text PRIMARY KEY NOT NULL,
	`configuration_id` text NOT NULL,
	`position` integer NOT NULL,
	`country_code` text NOT NULL,
	`state_code` text,
	FOREIGN KEY (`configuration_id`) REFERENCES `shipping_configurations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `shipping_regions_configuration` ON `shipping_regions` (`configuration_id`,`position`);--> statement-breakpoint
CREATE INDEX `shipping_regions_place` ON `shipping_regions` (`country_code`,`state_code`);--> statement-breakpoint
CREATE TABLE `shipping_services` (
	`id` text PRIMARY KEY NOT NULL,
	`configuration_id` text NOT NULL,
	`title` text NOT NULL,
	`code` text NOT NULL,
	`carrier` text,
	`is_active` integer NOT NULL,
	`is_default` integer NOT NULL,
	`sort_order` integer NOT NULL,
	`rates` text NOT NULL,
	`top_rate` text NOT NULL,
	FOREIGN KEY (`configuration_id`) REFERENCES `shipping_configurations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `shipping_services_configuration` ON `shipping_services` (`configuration_id`,`sort_order`);