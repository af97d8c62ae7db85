-- The audit trail is append-only: the database itself refuses to change or remove an entry.
CREATE TRIGGER `audit_entries_no_update` BEFORE UPDATE ON `audit_entries`
BEGIN
  SELECT RAISE(ABORT, 'audit entries are append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_entries_no_delete` BEFORE DELETE ON `audit_entries`
BEGIN
  SELECT RAISE(ABORT, 'audit entries are append-only');
END;
