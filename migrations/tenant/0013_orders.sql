CREATE TABLE `order_discounts` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`position` integer NOT NULL,
	`source_type` text NOT NULL,
	`source_id` text,
	`code` text,
	`title` text NOT NULL,
	`scope` text NOT NULL,
	`line_item_id` text,
	`action_message` text,
	`applies_to` text NOT NULL,
	`applies_to_object_ids` text NOT NULL,
	`combinability` text NOT NULL,
	`stacking_scope` text NOT NULL,
	`requires_manager_approval` integer NOT NULL,
	`manager_approved_by_staff_user_id` text,
	`excludes_service_charges` integer NOT NULL,
	`service_charge_interaction` text,
	`eligibility_summary` text NOT NULL,
	`discount_type` text NOT NULL,
	`value` integer NOT NULL,
	`max_discount_amount` integer,
	`minimum_cart_amount` integer,
	`amount` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `order_discounts_order` ON `order_discounts` (`order_id`,`position`);--> statement-breakpoint
CREATE INDEX `order_discounts_source` ON `order_discounts` (`source_id`);--> statement-breakpoint
CREATE TABLE `order_fulfillments` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`type` text NOT NULL,
	`fulfillment_date` text NOT NULL,
	`package_count` integer NOT NULL,
	`send_transaction_email` integer NOT NULL,
	`items` text NOT NULL,
	`shipped` text,
	`picked_up` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `order_fulfillments_order` ON `order_fulfillments` (`order_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `order_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`position` integer NOT NULL,
	`line_type` text NOT NULL,
	`send_status` text NOT NULL,
	`product_id` text,
	`product_variant_id` text,
	`sku` text,
	`title` text NOT NULL,
	`quantity` integer NOT NULL,
	`unit_price` integer NOT NULL,
	`tax_code` text,
	`tax_rate_bps` integer NOT NULL,
	`tax_calculation` text NOT NULL,
	`category` text,
	`sales_category` text,
	`open_item_scope` text,
	`pricing_strategy_applied` text NOT NULL,
	`menu_id` text,
	`size_name` text,
	`seat_id` text,
	`seat_number` integer,
	`course` text,
	`dining_option` text,
	`dining_option_label` text,
	`prep_time_seconds` integer,
	`note` text,
	`modifiers` text NOT NULL,
	`routing` text,
	`gift_card_sale` text,
	`collection_ids` text NOT NULL,
	`modifier_total` integer NOT NULL,
	`subtotal` integer NOT NULL,
	`discount_amount` integer NOT NULL,
	`tax_amount` integer NOT NULL,
	`total` integer NOT NULL,
	`sent_at` text,
	`void_reason_id` text,
	`void_reason_name` text,
	`voided_at` text,
	`voided_by_staff_user_id` text,
	`voided_by_staff_name` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `order_lines_order` ON `order_lines` (`order_id`,`position`);--> statement-breakpoint
CREATE INDEX `order_lines_product` ON `order_lines` (`product_id`);--> statement-breakpoint
CREATE TABLE `order_location_settings` (
	`location_id` text PRIMARY KEY NOT NULL,
	`country_code` text NOT NULL,
	`state_code` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `order_sequences` (
	`name` text PRIMARY KEY NOT NULL,
	`last_value` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `orders` (
	`id` text PRIMARY KEY NOT NULL,
	`order_number` integer NOT NULL,
	`customer_id` text,
	`customer_name` text,
	`guest_name` text,
	`location_id` text NOT NULL,
	`assigned_staff_user_id` text,
	`status` text NOT NULL,
	`source` text NOT NULL,
	`fulfillment_mode` text NOT NULL,
	`table_id` text,
	`section_id` text,
	`service_area_id` text,
	`table_label` text,
	`seat_count` integer,
	`note` text,
	`subtotal` integer NOT NULL,
	`discount_total` integer NOT NULL,
	`tax_total` integer NOT NULL,
	`included_tax_total` integer NOT NULL,
	`tip_total` integer NOT NULL,
	`contribution_amount_cents` integer NOT NULL,
	`total` integer NOT NULL,
	`amount_paid` integer NOT NULL,
	`balance_due` integer NOT NULL,
	`payment_intent_ids` text NOT NULL,
	`fundraising` text,
	`submitted_at` text,
	`paid_at` text,
	`closed_at` text,
	`voided_at` text,
	`voided_by_staff_user_id` text,
	`void_reason_id` text,
	`void_reason_name` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_order_number_unique` ON `orders` (`order_number`);--> statement-breakpoint
CREATE INDEX `orders_created_at` ON `orders` (`created_at`);--> statement-breakpoint
CREATE INDEX `orders_location_created_at` ON `orders` (`location_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_customer` ON `orders` (`customer_id`);--> statement-breakpoint
CREATE INDEX `orders_status` ON `orders` (`status`);