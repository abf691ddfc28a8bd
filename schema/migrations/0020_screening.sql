CREATE TABLE `do_not_originate` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`number` text NOT NULL,
	`label` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `do_not_originate_customer_number_idx` ON `do_not_originate` (`customer_id`,`number`);--> statement-breakpoint
CREATE INDEX `do_not_originate_customer_idx` ON `do_not_originate` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `screening_settings` (
	`customer_id` text PRIMARY KEY NOT NULL,
	`rules` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `calls` ADD `attestation` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `identity_status` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `identity_reason` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `screening` text;--> statement-breakpoint
CREATE INDEX `calls_customer_identity_status_started_idx` ON `calls` (`customer_id`,`identity_status`,`started_at`);