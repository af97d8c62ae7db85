CREATE TABLE `ingredient_stocks` (
	`id` text PRIMARY KEY NOT NULL,
	`ingredient_id` text NOT NULL,
	`location_id` text NOT NULL,
	`on_hand_quantity` integer NOT NULL,
	`par_quantity` integer,
	`reorder_quantity` integer,
	`last_counted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`ingredient_id`) REFERENCES `ingredients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ingredient_stocks_pair` ON `ingredient_stocks` (`ingredient_id`,`location_id`);--> statement-breakpoint
CREATE INDEX `ingredient_stocks_location` ON `ingredient_stocks` (`location_id`);--> statement-breakpoint
CREATE TABLE `ingredients` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`base_unit` text NOT NULL,
	`purchase_unit` text,
	`purchase_unit_quantity` integer NOT NULL,
	`latest_unit_cost` integer,
	`weighted_average_unit_cost` integer,
	`vendor_id` text,
	`active` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`vendor_id`) REFERENCES `vendors`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ingredients_code_unique` ON `ingredients` (lower("code"));--> statement-breakpoint
CREATE INDEX `ingredients_name` ON `ingredients` (`name`);--> statement-breakpoint
CREATE TABLE `inventory_movements` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`ingredient_id` text NOT NULL,
	`location_id` text NOT NULL,
	`movement_type` text NOT NULL,
	`quantity_delta` integer NOT NULL,
	`unit_cost` integer,
	`total_cost` integer,
	`reason` text,
	`reference_type` text,
	`reference_id` text,
	`reference_line_id` text,
	`reverses_movement_id` text,
	`note` text,
	`occurred_at` text NOT NULL,
	`resulting_on_hand_quantity` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`ingredient_id`) REFERENCES `ingredients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inventory_movements_id_unique` ON `inventory_movements` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `inventory_movements_reverses_movement_id_unique` ON `inventory_movements` (`reverses_movement_id`);--> statement-breakpoint
CREATE INDEX `inventory_movements_ingredient` ON `inventory_movements` (`ingredient_id`,`location_id`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `inventory_movements_reference` ON `inventory_movements` (`reference_type`,`reference_id`);--> statement-breakpoint
CREATE TABLE `recipe_components` (
	`id` text PRIMARY KEY NOT NULL,
	`recipe_id` text NOT NULL,
	`ingredient_id` text NOT NULL,
	`quantity` integer NOT NULL,
	`position` integer NOT NULL,
	FOREIGN KEY (`recipe_id`) REFERENCES `recipes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ingredient_id`) REFERENCES `ingredients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recipe_components_pair` ON `recipe_components` (`recipe_id`,`ingredient_id`);--> statement-breakpoint
CREATE INDEX `recipe_components_ingredient` ON `recipe_components` (`ingredient_id`);--> statement-breakpoint
CREATE TABLE `recipes` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`product_id` text,
	`output_ingredient_id` text,
	`yield_quantity` integer NOT NULL,
	`active` integer NOT NULL,
	`note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`output_ingredient_id`) REFERENCES `ingredients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recipes_active_product` ON `recipes` (`product_id`) WHERE "recipes"."active" = 1 AND "recipes"."product_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `recipes_active_output` ON `recipes` (`output_ingredient_id`) WHERE "recipes"."active" = 1 AND "recipes"."output_ingredient_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `recipes_title` ON `recipes` (`title`);