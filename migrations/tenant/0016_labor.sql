CREATE TABLE `era_report_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`time_range` text NOT NULL,
	`params` text NOT NULL,
	`status` text NOT NULL,
	`result` text,
	`error` text,
	`requested_by_staff_user_id` text,
	`created_at` text NOT NULL,
	`completed_at` text
);
--> statement-breakpoint
CREATE INDEX `era_report_requests_status` ON `era_report_requests` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `labor_job_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`labor_job_id` text NOT NULL,
	`staff_user_id` text NOT NULL,
	`location_id` text NOT NULL,
	`primary_job` integer NOT NULL,
	`base_pay_rate_cents` integer,
	`starts_at` text NOT NULL,
	`ends_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`labor_job_id`) REFERENCES `labor_jobs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`staff_user_id`) REFERENCES `staff_users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `labor_job_assignments_staff` ON `labor_job_assignments` (`staff_user_id`,`location_id`);--> statement-breakpoint
CREATE INDEX `labor_job_assignments_job` ON `labor_job_assignments` (`labor_job_id`);--> statement-breakpoint
CREATE TABLE `labor_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`location_id` text,
	`external_id` text,
	`code` text,
	`title` text NOT NULL,
	`tipped` integer NOT NULL,
	`compensation_type` text NOT NULL,
	`default_wage_amount` integer,
	`pay_currency` text NOT NULL,
	`exclude_from_labor_summary` integer NOT NULL,
	`grants` text NOT NULL,
	`denies` text NOT NULL,
	`pay_metadata` text NOT NULL,
	`job_metadata` text NOT NULL,
	`archived_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `labor_jobs_code_unique` ON `labor_jobs` (lower("code"));--> statement-breakpoint
CREATE INDEX `labor_jobs_location` ON `labor_jobs` (`location_id`);--> statement-breakpoint
CREATE TABLE `labor_profiles` (
	`staff_user_id` text PRIMARY KEY NOT NULL,
	`employee_number` text,
	`external_payroll_id` text,
	`preferred_name` text,
	`hire_date` text,
	`employment_status` text NOT NULL,
	`pay_type` text NOT NULL,
	`base_pay_rate_cents` integer,
	`overtime_eligible` integer NOT NULL,
	`is_tipped_employee` integer NOT NULL,
	`declares_cash_tips` integer NOT NULL,
	`participates_in_tip_pool` integer NOT NULL,
	`primary_location_id` text,
	`metadata` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`staff_user_id`) REFERENCES `staff_users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`primary_location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `labor_shift_breaks` (
	`id` text PRIMARY KEY NOT NULL,
	`shift_id` text NOT NULL,
	`paid` integer NOT NULL,
	`started_at` text NOT NULL,
	`ended_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`shift_id`) REFERENCES `labor_shifts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `labor_shift_breaks_shift` ON `labor_shift_breaks` (`shift_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `labor_shifts` (
	`id` text PRIMARY KEY NOT NULL,
	`staff_user_id` text NOT NULL,
	`location_id` text NOT NULL,
	`labor_job_id` text NOT NULL,
	`job_role` text NOT NULL,
	`pay_rate_cents` integer NOT NULL,
	`status` text NOT NULL,
	`business_date` text NOT NULL,
	`clock_in_at` text NOT NULL,
	`clock_out_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`staff_user_id`) REFERENCES `staff_users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`labor_job_id`) REFERENCES `labor_jobs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `labor_shifts_one_open` ON `labor_shifts` (`staff_user_id`) WHERE "labor_shifts"."clock_out_at" IS NULL;--> statement-breakpoint
CREATE INDEX `labor_shifts_location_date` ON `labor_shifts` (`location_id`,`business_date`);--> statement-breakpoint
CREATE INDEX `labor_shifts_staff` ON `labor_shifts` (`staff_user_id`,`clock_in_at`);--> statement-breakpoint
ALTER TABLE `locations` ADD `address_line1` text;--> statement-breakpoint
ALTER TABLE `locations` ADD `address_line2` text;--> statement-breakpoint
ALTER TABLE `locations` ADD `city` text;--> statement-breakpoint
ALTER TABLE `locations` ADD `state_code` text;--> statement-breakpoint
ALTER TABLE `locations` ADD `postal_code` text;--> statement-breakpoint
ALTER TABLE `locations` ADD `country_code` text;--> statement-breakpoint
ALTER TABLE `locations` ADD `phone` text;