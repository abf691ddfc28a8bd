CREATE TABLE `webhook_delivery_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`url` text,
	`status_code` integer,
	`error` text,
	`latency_ms` integer,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_delivery_attempts_delivery_attempt_uq` ON `webhook_delivery_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `payload` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `next_attempt_at` text;