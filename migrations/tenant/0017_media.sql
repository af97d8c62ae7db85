CREATE TABLE `media_assets` (
	`id` text PRIMARY KEY NOT NULL,
	`location_id` text,
	`kind` text NOT NULL,
	`provider` text NOT NULL,
	`provider_asset_id` text NOT NULL,
	`upload_url` text,
	`upload_expires_at` text,
	`uploaded_at` text,
	`public_url` text,
	`variants` text NOT NULL,
	`status` text NOT NULL,
	`status_before_delete` text,
	`filename` text,
	`declared_mime_type` text,
	`mime_type` text,
	`width` integer,
	`height` integer,
	`size_bytes` integer,
	`checksum` text,
	`linked_entity_type` text,
	`linked_entity_id` text,
	`role` text,
	`metadata` text NOT NULL,
	`reused_from_asset_id` text,
	`created_by_staff_user_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `media_assets_status` ON `media_assets` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `media_assets_linked` ON `media_assets` (`linked_entity_type`,`linked_entity_id`);--> statement-breakpoint
CREATE INDEX `media_assets_location` ON `media_assets` (`location_id`);--> statement-breakpoint
CREATE INDEX `media_assets_object` ON `media_assets` (`provider_asset_id`);