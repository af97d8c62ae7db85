-- The gift card ledger is the only source of value. The database itself enforces:
-- entries are append-only; each entry continues its card's previous one (sequence + 1, and
-- balance_after = the card's current balance + amount_delta); a card's current_balance can only
-- ever be set to the balance_after of its newest entry; a new card starts at zero; cards with
-- history are never deleted. Together: current_balance = sum(amount_delta) of its entries.
CREATE TRIGGER `gift_card_transactions_no_update` BEFORE UPDATE ON `gift_card_transactions`
BEGIN
  SELECT RAISE(ABORT, 'gift card ledger entries are append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `gift_card_transactions_no_delete` BEFORE DELETE ON `gift_card_transactions`
BEGIN
  SELECT RAISE(ABORT, 'gift card ledger entries are append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `gift_card_transactions_continue_card` BEFORE INSERT ON `gift_card_transactions`
WHEN NEW.`sequence` IS NOT (
    SELECT coalesce(max(`sequence`), 0) + 1 FROM `gift_card_transactions` WHERE `gift_card_id` = NEW.`gift_card_id`
  )
  OR NEW.`balance_after` IS NOT (
    SELECT `current_balance` + NEW.`amount_delta` FROM `gift_cards` WHERE `id` = NEW.`gift_card_id`
  )
BEGIN
  SELECT RAISE(ABORT, 'a gift card ledger entry must continue its card''s balance');
END;
--> statement-breakpoint
CREATE TRIGGER `gift_cards_balance_from_ledger` BEFORE UPDATE OF `current_balance` ON `gift_cards`
WHEN NEW.`current_balance` IS NOT (
    SELECT `balance_after` FROM `gift_card_transactions` WHERE `gift_card_id` = NEW.`id`
    ORDER BY `sequence` DESC LIMIT 1
  )
BEGIN
  SELECT RAISE(ABORT, 'a gift card balance changes only through its ledger');
END;
--> statement-breakpoint
CREATE TRIGGER `gift_cards_start_at_zero` BEFORE INSERT ON `gift_cards`
WHEN NEW.`current_balance` <> 0
BEGIN
  SELECT RAISE(ABORT, 'a gift card starts with a zero balance; value arrives through its ledger');
END;
--> statement-breakpoint
CREATE TRIGGER `gift_cards_no_delete` BEFORE DELETE ON `gift_cards`
BEGIN
  SELECT RAISE(ABORT, 'gift cards are never deleted; disable them');
END;
