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
CREATE INDEX `coupons_title` ON `coupons` (`title`);