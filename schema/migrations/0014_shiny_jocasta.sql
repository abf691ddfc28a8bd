CREATE TABLE `oauth_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`client_id` text NOT NULL,
	`client_name` text,
	`redirect_host` text,
	`scope` text NOT NULL,
	`resource` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	`revoked_reason` text
);
--> statement-breakpoint
CREATE INDEX `oauth_grants_customer_created_idx` ON `oauth_grants` (`customer_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `dialer_sessions` ADD `used_at` text;--> statement-breakpoint
ALTER TABLE `dialer_sessions` ADD `call_id` text;