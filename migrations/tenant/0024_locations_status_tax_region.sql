ALTER TABLE `locations` ADD `tax_region` text;--> statement-breakpoint
ALTER TABLE `locations` ADD `status` text DEFAULT 'active' NOT NULL;