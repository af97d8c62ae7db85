-- The control database's auth version: bumped, in the writing transaction, when a passcode
-- session or credential is revoked, changed or removed, and when tenants change, so cached
-- principals and tenant lookups are rebuilt (src/platform/auth/auth-signals.ts).
CREATE TABLE auth_version (
  id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
  version INTEGER NOT NULL
);
--> statement-breakpoint
INSERT INTO auth_version (id, version) VALUES (1, 0);
--> statement-breakpoint
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
--> statement-breakpoint
CREATE TRIGGER tenants_auth_version_insert AFTER INSERT ON tenants
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER tenants_auth_version_update AFTER UPDATE ON tenants
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER tenants_auth_version_delete AFTER DELETE ON tenants
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
