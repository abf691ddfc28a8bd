CREATE TABLE `spent_tokens` (
	`jti` text PRIMARY KEY NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `spent_tokens_expires_idx` ON `spent_tokens` (`expires_at`);