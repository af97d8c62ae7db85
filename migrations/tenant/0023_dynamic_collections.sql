ALTER TABLE `collections` ADD `applies_to_condition` text;--> statement-breakpoint
ALTER TABLE `collections` ADD `conditions` text DEFAULT '[]' NOT NULL;