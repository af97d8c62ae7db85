CREATE TABLE `outbound_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`channel` text NOT NULL,
	`destination` text NOT NULL,
	`subject` text,
	`body` text NOT NULL,
	`category` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbound_messages_created` ON `outbound_messages` (`created_at`);--> statement-breakpoint
CREATE TABLE `gift_card_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`gift_card_id` text NOT NULL,
	`kind` text NOT NULL,
	`channel` text NOT NULL,
	`destination` text NOT NULL,
	`provider` text NOT NULL,
	`status` text NOT NULL,
	`failure_reason` text,
	`provider_message_id` text,
	`scheduled_at` text,
	`attempted_at` text NOT NULL,
	FOREIGN KEY (`gift_card_id`) REFERENCES `gift_cards`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `gift_card_deliveries_card` ON `gift_card_deliveries` (`gift_card_id`);--> statement-breakpoint
CREATE INDEX `gift_card_deliveries_status_attempted` ON `gift_card_deliveries` (`status`,`attempted_at`);--> statement-breakpoint
CREATE TABLE `gift_card_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`enabled` integer NOT NULL,
	`tips_enabled` integer NOT NULL,
	`cash_out_enabled` integer NOT NULL,
	`cash_out_threshold` integer NOT NULL,
	`cash_out_permission` text NOT NULL,
	`allow_discounts` integer NOT NULL,
	`allow_online_redemption` integer NOT NULL,
	`shared_across_locations` integer NOT NULL,
	`minimum_purchase_amount` integer NOT NULL,
	`digital_purchase_limit` integer NOT NULL,
	`physical_purchase_limit` integer NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "gift_card_settings_single_row" CHECK("gift_card_settings"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE `gift_card_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`gift_card_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`account_id` text NOT NULL,
	`entry_type` text NOT NULL,
	`amount_delta` integer NOT NULL,
	`balance_after` integer NOT NULL,
	`order_id` text,
	`payment_reference` text,
	`reason` text,
	`origin_location_id` text,
	`transaction_location_id` text,
	`voids_transaction_id` text,
	`related_gift_card_id` text,
	`staff_user_id` text,
	`occurred_at` text NOT NULL,
	FOREIGN KEY (`gift_card_id`) REFERENCES `gift_cards`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "gift_card_transactions_balance_non_negative" CHECK("gift_card_transactions"."balance_after" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `gift_card_transactions_card_sequence` ON `gift_card_transactions` (`gift_card_id`,`sequence`);--> statement-breakpoint
CREATE UNIQUE INDEX `gift_card_transactions_redeem_payment` ON `gift_card_transactions` (`payment_reference`) WHERE "gift_card_transactions"."entry_type" = 'redeem' AND "gift_card_transactions"."payment_reference" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `gift_card_transactions_voids_unique` ON `gift_card_transactions` (`voids_transaction_id`) WHERE "gift_card_transactions"."voids_transaction_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `gift_card_transactions_occurred` ON `gift_card_transactions` (`occurred_at`);--> statement-breakpoint
CREATE TABLE `gift_cards` (
	`id` text PRIMARY KEY NOT NULL,
	`gift_card_number` integer NOT NULL,
	`title` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`code` text NOT NULL,
	`code_hash` text NOT NULL,
	`initial_amount` integer NOT NULL,
	`current_balance` integer DEFAULT 0 NOT NULL,
	`value_account_id` text NOT NULL,
	`origin_location_id` text,
	`source` text NOT NULL,
	`recipient_name` text,
	`recipient_phone` text,
	`recipient_email` text,
	`purchaser_email` text,
	`purchaser_phone` text,
	`from_name` text,
	`gift_message` text,
	`notes` text,
	`delivery_status` text NOT NULL,
	`delivery_scheduled_at` text,
	`delivery_channel` text,
	`delivery_destination` text,
	`delivery_last_attempt_at` text,
	`delivery_failure_reason` text,
	`delivery_claimed_at` text,
	`merged_into_gift_card_id` text,
	`expiry_date` text,
	`product_id` text,
	`purchased_on_order_id` text,
	`purchased_on_order_number` text,
	`purchased_on_order_line_id` text,
	`notify_purchaser_when_opened` integer DEFAULT false NOT NULL,
	`opened_at` text,
	`purchaser_notified_at` text,
	`customer_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "gift_cards_balance_non_negative" CHECK("gift_cards"."current_balance" >= 0),
	CONSTRAINT "gift_cards_initial_amount_non_negative" CHECK("gift_cards"."initial_amount" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `gift_cards_number_unique` ON `gift_cards` (`gift_card_number`);--> statement-breakpoint
CREATE UNIQUE INDEX `gift_cards_code_hash_unique` ON `gift_cards` (`code_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `gift_cards_order_line_unique` ON `gift_cards` (`purchased_on_order_id`,`purchased_on_order_line_id`) WHERE "gift_cards"."purchased_on_order_line_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `gift_cards_delivery_due` ON `gift_cards` (`delivery_status`,`delivery_scheduled_at`);--> statement-breakpoint
CREATE INDEX `gift_cards_customer` ON `gift_cards` (`customer_id`);