CREATE TABLE `tenant_due_work` (
	`tenant_id` text NOT NULL,
	`job` text NOT NULL,
	`due_at` integer,
	`indexed_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `job`)
);
--> statement-breakpoint
CREATE INDEX `tenant_due_work_job` ON `tenant_due_work` (`job`,`due_at`);