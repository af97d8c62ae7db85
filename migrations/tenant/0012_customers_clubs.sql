CREATE TABLE `club_memberships` (
	`id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`customer_id` text NOT NULL,
	`club_id` text NOT NULL,
	`bill_to_customer_address_id` text,
	`order_delivery_method` text NOT NULL,
	`ship_to_customer_address_id` text,
	`customer_credit_card_id` text,
	`provider_customer_id` text,
	`provider_payment_method_id` text,
	`signup_date` text NOT NULL,
	`cancel_date` text,
	`cancel_reason` text,
	`last_processed_date` text,
	`next_process_date` text,
	`hold_until` text,
	`hold_reason` text,
	`current_number_of_shipments` integer NOT NULL,
	`subscription_template_id` text,
	`cadence_override` text,
	`location_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`club_id`) REFERENCES `clubs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`bill_to_customer_address_id`) REFERENCES `customer_addresses`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`ship_to_customer_address_id`) REFERENCES `customer_addresses`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_credit_card_id`) REFERENCES `customer_payment_methods`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `club_memberships_customer` ON `club_memberships` (`customer_id`);--> statement-breakpoint
CREATE INDEX `club_memberships_club` ON `club_memberships` (`club_id`,`status`);--> statement-breakpoint
CREATE INDEX `club_memberships_location` ON `club_memberships` (`location_id`);--> statement-breakpoint
CREATE INDEX `club_memberships_hold` ON `club_memberships` (`status`,`hold_until`);--> statement-breakpoint
CREATE INDEX `club_memberships_card` ON `club_memberships` (`customer_credit_card_id`);--> statement-breakpoint
CREATE TABLE `clubs` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`slug` text NOT NULL,
	`type` text NOT NULL,
	`content` text,
	`publish_date` text,
	`seo_title` text,
	`seo_description` text,
	`web_status` text NOT NULL,
	`admin_status` text NOT NULL,
	`cadence_unit` text NOT NULL,
	`cadence_count` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `clubs_slug_unique` ON `clubs` (lower("slug"));--> statement-breakpoint
CREATE INDEX `clubs_title` ON `clubs` (`title`);--> statement-breakpoint
CREATE TABLE `customer_addresses` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`label` text NOT NULL,
	`name` text NOT NULL,
	`phone` text,
	`line1` text NOT NULL,
	`line2` text,
	`city` text NOT NULL,
	`region` text NOT NULL,
	`postal_code` text NOT NULL,
	`country_code` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `customer_addresses_customer` ON `customer_addresses` (`customer_id`);--> statement-breakpoint
CREATE TABLE `customer_aliases` (
	`source_customer_id` text PRIMARY KEY NOT NULL,
	`primary_customer_id` text NOT NULL,
	`merged_at` text NOT NULL,
	FOREIGN KEY (`primary_customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `customer_aliases_primary` ON `customer_aliases` (`primary_customer_id`);--> statement-breakpoint
CREATE TABLE `customer_payment_methods` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`provider` text NOT NULL,
	`provider_customer_id` text NOT NULL,
	`provider_payment_method_id` text NOT NULL,
	`brand` text NOT NULL,
	`last4` text NOT NULL,
	`exp_month` integer NOT NULL,
	`exp_year` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customer_payment_methods_ref` ON `customer_payment_methods` (`provider`,`provider_payment_method_id`);--> statement-breakpoint
CREATE INDEX `customer_payment_methods_customer` ON `customer_payment_methods` (`customer_id`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`external_ref` text,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`email` text NOT NULL,
	`phone` text,
	`status` text NOT NULL,
	`tags` text NOT NULL,
	`marketing_opt_in` integer NOT NULL,
	`notes` text,
	`company` text,
	`job_title` text,
	`spouse` text,
	`additional_phones` text NOT NULL,
	`birth_date` text,
	`anniversary_date` text,
	`social_profiles` text NOT NULL,
	`origin_location_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`origin_location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_email_unique` ON `customers` (lower("email"));--> statement-breakpoint
CREATE INDEX `customers_name` ON `customers` (`last_name`,`first_name`);--> statement-breakpoint
CREATE INDEX `customers_origin_location` ON `customers` (`origin_location_id`);--> statement-breakpoint
CREATE INDEX `customers_external_ref` ON `customers` (`external_ref`);--> statement-breakpoint
CREATE TABLE `payment_provider_customers` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`provider` text NOT NULL,
	`provider_customer_id` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_provider_customers_ref` ON `payment_provider_customers` (`provider`,`provider_customer_id`);--> statement-breakpoint
CREATE INDEX `payment_provider_customers_customer` ON `payment_provider_customers` (`customer_id`,`provider`);