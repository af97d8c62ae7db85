CREATE TABLE `cash_drawers` (
	`id` text PRIMARY KEY NOT NULL,
	`location_id` text NOT NULL,
	`label` text NOT NULL,
	`base_label` text NOT NULL,
	`sequence_number` integer NOT NULL,
	`state` text NOT NULL,
	`assigned_staff_user_id` text,
	`locked_to_staff_user_id` text,
	`opening_staff_user_id` text,
	`starting_balance` integer NOT NULL,
	`expected_balance` integer NOT NULL,
	`actual_balance` integer,
	`over_short_amount` integer,
	`reconciliation_status` text,
	`closeout_mode` text NOT NULL,
	`closeout_require_approval_amount` integer,
	`closeout_warning_amount` integer,
	`state_comment` text,
	`closed_by_staff_user_id` text,
	`approved_by_staff_user_id` text,
	`closeout_summary` text,
	`parent_drawer_id` text,
	`replacement_drawer_id` text,
	`payload` text NOT NULL,
	`opened_at` text NOT NULL,
	`paused_at` text,
	`closed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cash_drawers_label_sequence` ON `cash_drawers` (`location_id`,lower("base_label"),`sequence_number`);--> statement-breakpoint
CREATE INDEX `cash_drawers_location_state` ON `cash_drawers` (`location_id`,`state`);--> statement-breakpoint
CREATE INDEX `cash_drawers_assigned` ON `cash_drawers` (`assigned_staff_user_id`);--> statement-breakpoint
CREATE TABLE `cash_drawer_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`drawer_id` text NOT NULL,
	`location_id` text NOT NULL,
	`entry_type` text NOT NULL,
	`amount` integer NOT NULL,
	`balance_delta` integer NOT NULL,
	`comment` text,
	`reason` text,
	`created_by_staff_user_id` text,
	`related_staff_user_id` text,
	`payment_intent_id` text,
	`order_id` text,
	`payload` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`drawer_id`) REFERENCES `cash_drawers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `cash_drawer_entries_drawer` ON `cash_drawer_entries` (`drawer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `cash_drawer_entries_payment` ON `cash_drawer_entries` (`payment_intent_id`);--> statement-breakpoint
CREATE TABLE `payment_intents` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`location_id` text NOT NULL,
	`tender` text NOT NULL,
	`status` text NOT NULL,
	`amount` integer NOT NULL,
	`tip_amount` integer NOT NULL,
	`authorized_amount` integer NOT NULL,
	`captured_amount` integer NOT NULL,
	`refunded_amount` integer NOT NULL,
	`refunded_tip_amount` integer NOT NULL,
	`amount_tendered` integer,
	`change_due` integer,
	`drawer_id` text,
	`provider` text,
	`provider_payment_id` text,
	`card_brand` text,
	`card_last4` text,
	`gift_card_id` text,
	`failure_reason` text,
	`created_by_staff_user_id` text,
	`authorized_at` text,
	`captured_at` text,
	`voided_at` text,
	`refunded_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_intents_order` ON `payment_intents` (`order_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `payment_intents_location_created` ON `payment_intents` (`location_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `payment_intents_status` ON `payment_intents` (`status`);--> statement-breakpoint
CREATE TABLE `payment_refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`payment_intent_id` text NOT NULL,
	`amount` integer NOT NULL,
	`tip_amount` integer NOT NULL,
	`reason` text,
	`provider_refund_id` text,
	`drawer_id` text,
	`created_by_staff_user_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`payment_intent_id`) REFERENCES `payment_intents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_refunds_payment` ON `payment_refunds` (`payment_intent_id`);