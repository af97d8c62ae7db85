CREATE TABLE `data_import_errors` (
	`import_id` text NOT NULL,
	`line` integer NOT NULL,
	`field` text,
	`reason` text NOT NULL,
	PRIMARY KEY(`import_id`, `line`),
	FOREIGN KEY (`import_id`) REFERENCES `data_imports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `data_import_files` (
	`import_id` text PRIMARY KEY NOT NULL,
	`bytes` blob NOT NULL,
	FOREIGN KEY (`import_id`) REFERENCES `data_imports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `data_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`format` text NOT NULL,
	`mode` text NOT NULL,
	`emit_events` integer NOT NULL,
	`mapping` text NOT NULL,
	`file_name` text,
	`file_bytes` integer NOT NULL,
	`state` text NOT NULL,
	`lines_done` integer NOT NULL,
	`bytes_done` integer NOT NULL,
	`rows_read` integer NOT NULL,
	`rows_applied` integer NOT NULL,
	`rows_unchanged` integer NOT NULL,
	`rows_failed` integer NOT NULL,
	`lease_until` text,
	`error` text,
	`location_id` text,
	`created_by_staff_user_id` text,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `data_imports_state` ON `data_imports` (`state`,`created_at`);