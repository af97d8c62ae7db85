ALTER TABLE `order_discounts` ADD `shipping_discount_type` text DEFAULT 'No Discount' NOT NULL;--> statement-breakpoint
ALTER TABLE `order_discounts` ADD `shipping_discount` integer;--> statement-breakpoint
ALTER TABLE `orders` ADD `shipping_discount_amount` integer DEFAULT 0 NOT NULL;