ALTER TABLE `club_memberships` ADD `external_ref` text;--> statement-breakpoint
CREATE INDEX `club_memberships_external_ref` ON `club_memberships` (`external_ref`);