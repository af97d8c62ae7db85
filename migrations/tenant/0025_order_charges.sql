CREATE TABLE `order_service_charges` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`position` integer NOT NULL,
	`title` text NOT NULL,
	`charge_type` text NOT NULL,
	`value` integer NOT NULL,
	`taxable` integer NOT NULL,
	`gratuity` integer NOT NULL,
	`tax_code` text NOT NULL,
	`tax_rate_bps` integer NOT NULL,
	`amount` integer NOT NULL,
	`discount_amount` integer NOT NULL,
	`tax_amount` integer NOT NULL,
	`total` integer NOT NULL,
	`created_by_staff_user_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `order_service_charges_order` ON `order_service_charges` (`order_id`,`position`);--> statement-breakpoint
CREATE TABLE `order_settings` (
	`id` text PRIMARY KEY NOT NULL,
	`bottle_deposit_taxable` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `order_lines` ADD `bottle_deposit` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `bottle_deposit_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `service_charge_total` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `shipping_total` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `shipping_tax_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `bottle_deposit_total` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `ship_to_country_code` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `ship_to_state_code` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `shipping_service_id` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `shipping_service_title` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `shipping_rate` integer;--> statement-breakpoint
ALTER TABLE `orders` ADD `shipping_override` integer;