-- The auth version: bumped, in the writing transaction, by every change that can alter what a
-- cached principal says (who a subject is, whether a staff user is active, their roles, the jobs
-- and assignments that add or remove primitives, the tenant's locations). See
-- src/platform/auth/auth-signals.ts for how running processes learn of it.
CREATE TABLE auth_version (
  id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
  version INTEGER NOT NULL
);
--> statement-breakpoint
INSERT INTO auth_version (id, version) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER staff_users_auth_version_insert AFTER INSERT ON staff_users
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER staff_users_auth_version_update AFTER UPDATE OF status ON staff_users
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER staff_users_auth_version_delete AFTER DELETE ON staff_users
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER staff_identities_auth_version_insert AFTER INSERT ON staff_identities
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER staff_identities_auth_version_update AFTER UPDATE ON staff_identities
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER staff_identities_auth_version_delete AFTER DELETE ON staff_identities
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER staff_roles_auth_version_insert AFTER INSERT ON staff_roles
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER staff_roles_auth_version_update AFTER UPDATE ON staff_roles
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER staff_roles_auth_version_delete AFTER DELETE ON staff_roles
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER labor_jobs_auth_version_insert AFTER INSERT ON labor_jobs
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER labor_jobs_auth_version_update AFTER UPDATE OF location_id, grants, denies, archived_at ON labor_jobs
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER labor_jobs_auth_version_delete AFTER DELETE ON labor_jobs
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER labor_job_assignments_auth_version_insert AFTER INSERT ON labor_job_assignments
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER labor_job_assignments_auth_version_update AFTER UPDATE ON labor_job_assignments
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER labor_job_assignments_auth_version_delete AFTER DELETE ON labor_job_assignments
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER locations_auth_version_insert AFTER INSERT ON locations
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER locations_auth_version_delete AFTER DELETE ON locations
BEGIN
  UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
