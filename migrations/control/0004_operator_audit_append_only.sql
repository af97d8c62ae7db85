-- The operator audit log is append-only: the database itself refuses to change or remove an entry.
CREATE TRIGGER `operator_audit_entries_no_update` BEFORE UPDATE ON `operator_audit_entries`
BEGIN
  SELECT RAISE(ABORT, 'operator audit entries are append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `operator_audit_entries_no_delete` BEFORE DELETE ON `operator_audit_entries`
BEGIN
  SELECT RAISE(ABORT, 'operator audit entries are append-only');
END;
