CREATE TABLE `exchange_idempotency_keys` (
	`i_account` integer NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`response` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `exchange_idempotency_keys_account_key_uq` ON `exchange_idempotency_keys` (`i_account`,`key`);--> statement-breakpoint
CREATE INDEX `exchange_idempotency_keys_created_idx` ON `exchange_idempotency_keys` (`created_at`);