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
CREATE INDEX `notes_date` ON `notes` (`note_date`);