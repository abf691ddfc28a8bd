ALTER TABLE `automation_rules` ADD `identity_statuses` text;--> statement-breakpoint
ALTER TABLE `automation_rules` ADD `screening_rules` text;--> statement-breakpoint
ALTER TABLE `alert_rules` ADD `identity_statuses` text;--> statement-breakpoint
ALTER TABLE `alert_rules` ADD `screening_rules` text;--> statement-breakpoint
CREATE INDEX `calls_customer_attestation_started_idx` ON `calls` (`customer_id`,`attestation`,`started_at`);