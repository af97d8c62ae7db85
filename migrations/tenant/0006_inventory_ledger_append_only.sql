-- The inventory ledger is append-only: a correction is a new movement (a count, a reversal),
-- never an edit, so the sum of a stock's movement deltas stays its on-hand quantity.
CREATE TRIGGER `inventory_movements_no_update` BEFORE UPDATE ON `inventory_movements`
BEGIN
  SELECT RAISE(ABORT, 'inventory movements are append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `inventory_movements_no_delete` BEFORE DELETE ON `inventory_movements`
BEGIN
  SELECT RAISE(ABORT, 'inventory movements are append-only');
END;
