CREATE TABLE `api_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`token_hint` text NOT NULL,
	`scopes` text NOT NULL,
	`location_ids` text NOT NULL,
	`rate_limit_per_minute` integer NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_credentials_token_hash_unique` ON `api_credentials` (`token_hash`);--> statement-breakpoint
CREATE TABLE `passcode_attempts` (
	`staff_user_id` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`window_started_at` text NOT NULL,
	`locked_until` text
);
--> statement-breakpoint
CREATE TABLE `passcode_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`staff_user_id` text NOT NULL,
	`location_id` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `passcode_sessions_token_hash_unique` ON `passcode_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `passcode_sessions_staff` ON `passcode_sessions` (`staff_user_id`);--> statement-breakpoint
CREATE INDEX `passcode_sessions_expires_at` ON `passcode_sessions` (`expires_at`);--> statement-breakpoint
-- A session signed out or a credential revoked (or removed) changes what a cached principal says:
-- the tenant's auth version moves with it (src/platform/auth/auth-signals.ts). New rows cannot.
CREATE TRIGGER passcode_sessions_auth_version_update AFTER UPDATE ON passcode_sessions
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER passcode_sessions_auth_version_delete AFTER DELETE ON passcode_sessions
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER api_credentials_auth_version_update AFTER UPDATE ON api_credentials
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER api_credentials_auth_version_delete AFTER DELETE ON api_credentials
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
