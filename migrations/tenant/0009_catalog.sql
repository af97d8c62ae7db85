CREATE TABLE `collection_products` (
	`collection_id` text NOT NULL,
	`product_id` text NOT NULL,
	`sort_order` integer NOT NULL,
	PRIMARY KEY(`collection_id`, `product_id`),
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `collection_products_product` ON `collection_products` (`product_id`);--> statement-breakpoint
CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`type` text NOT NULL,
	`content` text,
	`web_status` text NOT NULL,
	`admin_status` text NOT NULL,
	`slug` text NOT NULL,
	`feature_image` text,
	`seo_title` text,
	`seo_description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collections_slug_unique` ON `collections` (lower("slug"));--> statement-breakpoint
CREATE INDEX `collections_title` ON `collections` (`title`);--> statement-breakpoint
CREATE TABLE `product_bundle_items` (
	`product_id` text NOT NULL,
	`product_variant_id` text NOT NULL,
	`quantity` integer NOT NULL,
	`sort_order` integer NOT NULL,
	PRIMARY KEY(`product_id`, `product_variant_id`),
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`product_variant_id`) REFERENCES `product_variants`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `product_bundle_items_variant` ON `product_bundle_items` (`product_variant_id`);--> statement-breakpoint
CREATE TABLE `product_inventory` (
	`product_variant_id` text NOT NULL,
	`inventory_location_id` text NOT NULL,
	`available_for_sale_count` integer NOT NULL,
	`reserve_count` integer NOT NULL,
	`allocated_count` integer NOT NULL,
	PRIMARY KEY(`product_variant_id`, `inventory_location_id`),
	FOREIGN KEY (`product_variant_id`) REFERENCES `product_variants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`inventory_location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE TABLE `product_variants` (
	`id` text PRIMARY KEY NOT NULL,
	`product_id` text NOT NULL,
	`title` text NOT NULL,
	`sku` text NOT NULL,
	`upc_code` text,
	`volume_in_ml` integer,
	`cost_of_good` integer,
	`price` integer NOT NULL,
	`compare_price` integer,
	`bottle_deposit` integer,
	`sort_order` integer NOT NULL,
	`has_inventory` integer NOT NULL,
	`inventory_policy` text NOT NULL,
	`has_shipping` integer NOT NULL,
	`tax_type` text NOT NULL,
	`weight` real,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `product_variants_sku_unique` ON `product_variants` (lower("sku"));--> statement-breakpoint
CREATE INDEX `product_variants_product` ON `product_variants` (`product_id`,`sort_order`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`sub_title` text,
	`image` text,
	`type` text NOT NULL,
	`department_id` text,
	`vendor_id` text,
	`teaser` text,
	`content` text,
	`web_status` text NOT NULL,
	`admin_status` text NOT NULL,
	`slug` text NOT NULL,
	`meta_data` text NOT NULL,
	`product_template_id` text,
	`images` text NOT NULL,
	`available_to` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`vendor_id`) REFERENCES `vendors`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_slug_unique` ON `products` (lower("slug"));--> statement-breakpoint
CREATE INDEX `products_title` ON `products` (`title`);--> statement-breakpoint
CREATE INDEX `products_updated_at` ON `products` (`updated_at`);--> statement-breakpoint
CREATE TABLE `wine_appellations` (
	`id` text PRIMARY KEY NOT NULL,
	`country_code` text NOT NULL,
	`region` text NOT NULL,
	`appellation` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wine_appellations_unique` ON `wine_appellations` (`country_code`,`region`,`appellation`);--> statement-breakpoint
CREATE INDEX `wine_appellations_appellation` ON `wine_appellations` (`appellation`);--> statement-breakpoint
CREATE TABLE `wine_varietals` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`varietal` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wine_varietals_unique` ON `wine_varietals` (`type`,`varietal`);