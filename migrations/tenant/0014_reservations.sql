CREATE TABLE `experience_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`experience_id` text NOT NULL,
	`version_number` integer NOT NULL,
	`public_name` text NOT NULL,
	`description` text,
	`party_min` integer NOT NULL,
	`party_max` integer NOT NULL,
	`cutoff_minutes` integer NOT NULL,
	`duration_minutes` integer NOT NULL,
	`visibility` text NOT NULL,
	`schedule` text NOT NULL,
	`published_at` text NOT NULL,
	`published_by` text,
	FOREIGN KEY (`experience_id`) REFERENCES `experiences`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `experience_versions_number` ON `experience_versions` (`experience_id`,`version_number`);--> statement-breakpoint
CREATE TABLE `experiences` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`location_id` text NOT NULL,
	`current_version_id` text,
	`archived_at` text,
	`private_link_token` text NOT NULL,
	`private_link_rotated_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `experiences_private_link_unique` ON `experiences` (`private_link_token`);--> statement-breakpoint
CREATE INDEX `experiences_location` ON `experiences` (`location_id`);--> statement-breakpoint
CREATE TABLE `tables_location_mapping` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_location_code` text NOT NULL,
	`location_id` text NOT NULL,
	`public_slug` text NOT NULL,
	`public_name` text NOT NULL,
	`is_public` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `legacy_reservations` (
	`id` text PRIMARY KEY NOT NULL,
	`reservation_number` integer NOT NULL,
	`channel` text NOT NULL,
	`external_reservation_number` text,
	`external_reservation_vendor` text,
	`reservation_source` text,
	`customer_id` text,
	`reservation_date` text NOT NULL,
	`business_date` text NOT NULL,
	`reservation_close_out_date` text,
	`last_process_attempt_date` text,
	`reservation_paid_date` text,
	`reminder_email_send_date` text,
	`check_in_time` text,
	`close_out_time` text,
	`reservation_type_id` text NOT NULL,
	`reservation_type_option_id` text,
	`guest_count` integer NOT NULL,
	`reservation_location_id` text NOT NULL,
	`reservation_location_table_id` text,
	`reservation_staff_id` text,
	`experience_type` text NOT NULL,
	`is_requires_a_host` integer NOT NULL,
	`inventory_location_id` text NOT NULL,
	`status` text NOT NULL,
	`payment_status` text NOT NULL,
	`payment_charge` text NOT NULL,
	`order_id` text,
	`order_number` integer,
	`reminder_email_send_status` text NOT NULL,
	`sku` text,
	`price` integer NOT NULL,
	`tender_type` text,
	`customer_credit_card_id` text,
	`is_price_override` integer NOT NULL,
	`is_reservation_date_override` integer NOT NULL,
	`is_reservation_location_override` integer NOT NULL,
	`is_guest_count_override` integer NOT NULL,
	`reservation_third_party_id` text,
	`notes` text,
	`system_note` text,
	`meta_data` text,
	`app_data` text,
	`app_sync` text,
	`flags` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`reservation_type_id`) REFERENCES `reservation_types`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `legacy_reservations_number` ON `legacy_reservations` (`reservation_number`);--> statement-breakpoint
CREATE INDEX `legacy_reservations_date` ON `legacy_reservations` (`business_date`);--> statement-breakpoint
CREATE INDEX `legacy_reservations_customer` ON `legacy_reservations` (`customer_id`);--> statement-breakpoint
CREATE INDEX `legacy_reservations_type_slot` ON `legacy_reservations` (`reservation_type_id`,`reservation_date`);--> statement-breakpoint
CREATE TABLE `reservation_type_options` (
	`id` text PRIMARY KEY NOT NULL,
	`reservation_type_id` text NOT NULL,
	`title` text NOT NULL,
	`sku` text,
	`price` integer NOT NULL,
	`tax_code` text,
	`sort_order` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`reservation_type_id`) REFERENCES `reservation_types`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `reservation_type_options_type` ON `reservation_type_options` (`reservation_type_id`);--> statement-breakpoint
CREATE TABLE `reservation_type_time_slots` (
	`id` text PRIMARY KEY NOT NULL,
	`reservation_type_id` text NOT NULL,
	`day_of_week` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`reservation_type_id`) REFERENCES `reservation_types`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reservation_type_time_slots_day` ON `reservation_type_time_slots` (`reservation_type_id`,`day_of_week`);--> statement-breakpoint
CREATE TABLE `reservation_type_times` (
	`id` text PRIMARY KEY NOT NULL,
	`reservation_type_time_slot_id` text NOT NULL,
	`time` text NOT NULL,
	`allow_customers_to_reserve_online` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`reservation_type_time_slot_id`) REFERENCES `reservation_type_time_slots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reservation_type_times_time` ON `reservation_type_times` (`reservation_type_time_slot_id`,`time`);--> statement-breakpoint
CREATE TABLE `reservation_types` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`slug` text NOT NULL,
	`status` text NOT NULL,
	`type` text,
	`tour_type` text,
	`inventory_location_id` text,
	`reservation_location_id` text,
	`default_reservation_location_id` text,
	`reservation_location_ids` text NOT NULL,
	`payment_charge` text NOT NULL,
	`min_guest_count` integer NOT NULL,
	`max_guest_count` integer NOT NULL,
	`max_group_count` integer,
	`minutes_allotted` integer NOT NULL,
	`minutes_before_location_in_use` integer NOT NULL,
	`lead_time_in_hours` integer NOT NULL,
	`is_requires_a_host` integer NOT NULL,
	`is_always_occurs_in_default_location` integer NOT NULL,
	`allow_online_cancel` integer NOT NULL,
	`online_cancel_deadline_in_hours` integer,
	`email_instructions` text,
	`content` text,
	`image` text,
	`seo_title` text,
	`seo_description` text,
	`meta_data` text,
	`security` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reservation_types_slug_unique` ON `reservation_types` (lower("slug"));--> statement-breakpoint
CREATE TABLE `tables_reservations` (
	`id` text PRIMARY KEY NOT NULL,
	`public_id` text NOT NULL,
	`confirmation_code` text NOT NULL,
	`location_id` text NOT NULL,
	`experience_id` text NOT NULL,
	`experience_version_id` text NOT NULL,
	`lifecycle` text NOT NULL,
	`version` integer NOT NULL,
	`source` text NOT NULL,
	`business_date` text NOT NULL,
	`starts_at` text NOT NULL,
	`ends_at` text NOT NULL,
	`party_size` integer NOT NULL,
	`guest_name` text NOT NULL,
	`guest_email` text NOT NULL,
	`guest_phone` text,
	`booking_method` text NOT NULL,
	`currency` text NOT NULL,
	`subtotal_amount` integer NOT NULL,
	`tax_amount` integer NOT NULL,
	`total_amount` integer NOT NULL,
	`payment_resolved_at` text,
	`confirmed_at` text NOT NULL,
	`cancelled_at` text,
	`cancel_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`experience_id`) REFERENCES `experiences`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`experience_version_id`) REFERENCES `experience_versions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tables_reservations_public_id` ON `tables_reservations` (`public_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `tables_reservations_confirmation_code` ON `tables_reservations` (`confirmation_code`);--> statement-breakpoint
CREATE INDEX `tables_reservations_slot` ON `tables_reservations` (`experience_id`,`starts_at`);--> statement-breakpoint
CREATE INDEX `tables_reservations_location_date` ON `tables_reservations` (`location_id`,`business_date`);--> statement-breakpoint
CREATE TABLE `tables_signing_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`created_at` text NOT NULL
);
