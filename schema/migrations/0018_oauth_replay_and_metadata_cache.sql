ALTER TABLE `oauth_clients` ADD `metadata_expires_at` text;--> statement-breakpoint
ALTER TABLE `oauth_codes` ADD `grant_id` text;