CREATE TABLE `coupons` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`title` text NOT NULL,
	`action_message` text,
	`usage_limit_type` text NOT NULL,
	`usage_limit` integer,
	`applies_to` text NOT NULL,
	`applies_to_object_ids` text NOT NULL,
	`product_discount_type` text NOT NULL,
	`product_discount` integer,
	`shipping_discount_type` text NOT NULL,
	`shipping_discount` integer,
	`start_date` text,
	`end_date` text,
	`status` text NOT NULL,
	`minimum_cart_amount` integer,
	`available_to` text NOT NULL,
	`available_to_object_ids` text NOT NULL,
	`combinability` text NOT NULL,
	`requires_manager_approval` integer NOT NULL,
	`excludes_service_charges` integer NOT NULL,
	`service_charge_interaction` text NOT NULL,
	`max_discount_amount` integer,
	`promotion_sets` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `coupons_code_unique` ON `coupons` (lower("code"));--> statement-breakpoint
CREATE INDEX `coupons_title` ON `coupons` (`title`);--> statement-breakpoint
CREATE TABLE `notes` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`content` text NOT NULL,
	`note_date` text NOT NULL,
	`customer_id` text,
	`order_id` text,
	`club_membership_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notes_customer` ON `notes` (`customer_id`);--> statement-breakpoint
CREATE INDEX `notes_order` ON `notes` (`order_id`);--> statement-breakpoint
CREATE INDEX `notes_club_membership` ON `notes` (`club_membership_id`);--> statement-breakpoint
CREATE INDEX `notes_date` ON `notes` (`note_date`);--> statement-breakpoint
CREATE TABLE `tag_assignments` (
	`tag_id` text NOT NULL,
	`object_type` text NOT NULL,
	`object_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tag_id`, `object_type`, `object_id`),
	FOREIGN KEY (`tag_id`) REFERENCES `tags`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tag_assignments_object` ON `tag_assignments` (`object_type`,`object_id`);--> statement-breakpoint
CREATE TABLE `tags` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`object_type` text NOT NULL,
	`type` text NOT NULL,
	`applies_to_condition` text,
	`conditions` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tags_title_unique` ON `tags` (`object_type`,lower("title"));--> statement-breakpoint
CREATE TABLE `taxes` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`country_code` text NOT NULL,
	`state_code` text,
	`freight_bps` integer NOT NULL,
	`food_bps` integer NOT NULL,
	`general_merchandise_bps` integer NOT NULL,
	`wine_bps` integer NOT NULL,
	`tax_calculation` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `taxes_state_unique` ON `taxes` (`country_code`,`state_code`);--> statement-breakpoint
CREATE UNIQUE INDEX `taxes_country_unique` ON `taxes` (`country_code`) WHERE "taxes"."state_code" IS NULL;