ALTER TABLE `orders` ADD `external_ref` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `import_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `orders_external_ref_unique` ON `orders` (`external_ref`);