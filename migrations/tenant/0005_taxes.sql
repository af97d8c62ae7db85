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